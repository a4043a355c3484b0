package dev.retrysafe.jobs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class JobIdsTest {

    @Test
    void jobIdsArePrefixedUrlSafeAndUnique() {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            String id = JobIds.jobId();
            assertThat(id).matches("job_[A-Za-z0-9_-]{24}");
            ids.add(id);
        }
        assertThat(ids).hasSize(10_000);
    }

    @Test
    void idsUseTheWholeAlphabet() {
        Set<Character> seen = new HashSet<>();
        for (int i = 0; i < 2_000; i++) {
            for (char c : JobIds.jobId().substring(4).toCharArray()) {
                seen.add(c);
            }
        }
        assertThat(seen).hasSize(64); // 144 random bits spread over all 64 characters
    }

    @Test
    void leaseTokensAre128BitHex() {
        assertThat(JobIds.leaseToken()).matches("[0-9a-f]{32}").isNotEqualTo(JobIds.leaseToken());
    }
}
