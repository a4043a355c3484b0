package dev.retrysafe.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class NewJobTest {

    @Test
    void acceptsTheLargestValues() {
        String owner = "a".repeat(64);
        String kind = "k".repeat(64);
        String params = "\u00e9".repeat(NewJob.MAX_PARAMS_BYTES / 2); // two bytes each in UTF-8

        assertThat(new NewJob(owner, kind, params).params()).hasSize(NewJob.MAX_PARAMS_BYTES / 2);
        assertThat(new NewJob("acct_1", "payments_csv.v2-beta", "").kind()).isEqualTo("payments_csv.v2-beta");
    }

    @Test
    void paramsAreMeasuredInUtf8Bytes() {
        String params = "\u00e9".repeat(NewJob.MAX_PARAMS_BYTES / 2) + "x";

        assertThatThrownBy(() -> new NewJob("acct_1", "report", params))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("params")
                .hasMessageContaining("65537");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "\t"})
    void rejectsAnEmptyOrBlankOwner(String owner) {
        assertThatThrownBy(() -> new NewJob(owner, "report", "{}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("owner");
    }

    @Test
    void rejectsALongOwner() {
        assertThatThrownBy(() -> new NewJob("a".repeat(65), "report", "{}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("owner")
                .hasMessageContaining("65");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "Report", "pay ments", "csv/1", "r\u00e9port", "x;DROP"})
    void rejectsAKindOutsideItsAlphabet(String kind) {
        assertThatThrownBy(() -> new NewJob("acct_1", kind, "{}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("kind")
                .hasMessageContaining("[a-z0-9_.-]");
    }

    @Test
    void rejectsALongKind() {
        assertThatThrownBy(() -> new NewJob("acct_1", "k".repeat(65), "{}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("kind");
    }

    @Test
    void rejectsNullsByName() {
        assertThatThrownBy(() -> new NewJob(null, "report", "{}")).hasMessage("owner");
        assertThatThrownBy(() -> new NewJob("acct_1", null, "{}")).hasMessage("kind");
        assertThatThrownBy(() -> new NewJob("acct_1", "report", null)).hasMessage("params");
    }
}
