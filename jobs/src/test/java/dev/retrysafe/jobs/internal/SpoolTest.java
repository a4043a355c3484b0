package dev.retrysafe.jobs.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SpoolTest {

    @Test
    void smallResultStaysInMemory() throws IOException {
        try (Spool spool = new Spool(16)) {
            spool.output().write(new byte[] {1, 2, 3});
            spool.finish();

            assertThat(spool.spilled()).isFalse();
            assertThat(spool.size()).isEqualTo(3);
            try (InputStream in = spool.input()) {
                assertThat(in.readAllBytes()).containsExactly(1, 2, 3);
            }
        }
    }

    @Test
    void largeResultSpillsToAPrivateFileThatCloseDeletes() throws IOException {
        byte[] expected = new byte[100_000];
        new Random(7).nextBytes(expected);
        Path file;
        try (Spool spool = new Spool(1024)) {
            OutputStream out = spool.output();
            for (int i = 0; i < expected.length; i += 1000) {
                out.write(expected, i, 1000);
            }
            out.close(); // a writer closing its stream only ends its writing
            spool.finish();

            assertThat(spool.spilled()).isTrue();
            assertThat(spool.size()).isEqualTo(expected.length);
            for (int read = 0; read < 2; read++) { // a retried transaction reads it again
                try (InputStream in = spool.input()) {
                    assertThat(in.readAllBytes()).isEqualTo(expected);
                }
            }
            file = spool.file();
            assertThat(Files.getPosixFilePermissions(file))
                    .isEqualTo(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE));
        }
        assertThat(file).doesNotExist();
    }

    @Test
    void writingAfterFinishFails() throws IOException {
        try (Spool spool = new Spool()) {
            spool.finish();
            assertThatThrownBy(() -> spool.output().write(1)).isInstanceOf(IOException.class);
        }
    }
}
