package dev.retrysafe.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.junit.jupiter.api.Test;

class SchemaScriptsTest {

    private final SchemaScripts sample = new SchemaScripts(
            "/dev/retrysafe/common/sample", 3, name -> SchemaScriptsTest.class.getResourceAsStream(name));

    @Test
    void textIsTheScriptAsStored() {
        assertThat(sample.text()).startsWith("-- version 3 of a sample schema\nCREATE TABLE a");
    }

    @Test
    void statementsDropCommentLinesAndTerminators() {
        assertThat(sample.statements())
                .containsExactly(
                        "CREATE TABLE a (id BIGINT PRIMARY KEY)", "CREATE TABLE b (\n    id BIGINT PRIMARY KEY\n)");
    }

    @Test
    void statementsOfABlankScriptAreNone() {
        assertThat(SchemaScripts.statements("-- nothing here\n\n  ;\n")).isEmpty();
    }

    @Test
    void upgradesRunOldestFirstFromTheVersionAfterTheGivenOne() {
        assertThat(sample.upgradeStatements(1))
                .containsExactly(
                        "ALTER TABLE a ADD COLUMN x INT",
                        "CREATE TABLE b (\n    id BIGINT PRIMARY KEY\n)",
                        "ALTER TABLE a DROP COLUMN x");
        assertThat(sample.upgradeStatements(2))
                .containsExactly("CREATE TABLE b (\n    id BIGINT PRIMARY KEY\n)", "ALTER TABLE a DROP COLUMN x");
        assertThat(sample.upgradeStatements(3)).isEmpty();
    }

    @Test
    void rejectsVersionsOutsideOneToCurrent() {
        assertThatThrownBy(() -> sample.upgradeStatements(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("fromVersion must be 1 to 3, was 0");
        assertThatThrownBy(() -> sample.upgradeStatements(4))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("fromVersion must be 1 to 3, was 4");
        assertThatThrownBy(() -> new SchemaScripts("/x", 0, name -> null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("was 0");
    }

    @Test
    void aMissingResourceIsNamed() {
        // given
        SchemaScripts missing = new SchemaScripts(
                "/dev/retrysafe/common/absent", 1, name -> SchemaScriptsTest.class.getResourceAsStream(name));

        // when / then
        assertThatThrownBy(missing::text)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("resource /dev/retrysafe/common/absent.sql is missing from the jar");
    }

    @Test
    void aFailedReadIsUnchecked() {
        // given
        SchemaScripts broken = new SchemaScripts("/broken", 1, name -> new InputStream() {
            @Override
            public int read() throws IOException {
                throw new IOException("disk gone");
            }
        });

        // when / then
        assertThatThrownBy(broken::text)
                .isInstanceOf(UncheckedIOException.class)
                .hasMessage("cannot read resource /broken.sql");
    }
}
