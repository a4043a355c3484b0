package dev.retrysafe.jobs;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import org.junit.jupiter.api.Test;

class JobOutputTest {

    @Test
    void bytesAreCopiedSoTheOutputNeverChanges() throws Exception {
        byte[] body = "a,b".getBytes(UTF_8);
        JobOutput output = JobOutput.of("text/csv", body);
        body[0] = 'z';

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        output.writeTo(out);

        assertThat(out.toString(UTF_8)).isEqualTo("a,b");
        assertThat(output.contentType()).isEqualTo("text/csv");
    }

    @Test
    void streamedOutputRunsItsWriterOnEachWrite() throws Exception {
        JobOutput output = JobOutput.streamed("text/plain", out -> out.write("hi".getBytes(UTF_8)));
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        output.writeTo(out);

        assertThat(out.toString(UTF_8)).isEqualTo("hi");
    }

    @Test
    void contentTypeMustBeAPlausibleHeaderValue() {
        assertThatThrownBy(() -> JobOutput.of("", new byte[0])).hasMessageContaining("contentType");
        assertThatThrownBy(() -> JobOutput.of(" ", new byte[0])).hasMessageContaining("contentType");
        assertThatThrownBy(() -> JobOutput.of("text/csv\r\nSet-Cookie: a=b", new byte[0]))
                .hasMessageContaining("control characters");
        assertThatThrownBy(() -> JobOutput.streamed("text/csv", null)).hasMessage("writer");
    }
}
