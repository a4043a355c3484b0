package db.migration;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class V2IdempotencyKeysTest {

    @Test
    void splitsStatementsOnSemicolonsAtLineEndsOnly() {
        String script = """
                -- the store's table
                CREATE TABLE a (x VARCHAR(10) DEFAULT 'a;b');
                CREATE INDEX a_x ON a (x);
                -- trailing comment
                """;

        assertThat(V2__Idempotency_keys.statements(script)).containsExactly(
                "-- the store's table\nCREATE TABLE a (x VARCHAR(10) DEFAULT 'a;b')",
                "CREATE INDEX a_x ON a (x)");
    }

    @Test
    void aSingleStatementWithoutSemicolonIsKept() {
        assertThat(V2__Idempotency_keys.statements("CREATE TABLE t (x INT)")).containsExactly("CREATE TABLE t (x INT)");
    }
}
