package dev.retrysafe.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class JobStatusTest {

    @Test
    void wireNamesAreTheFixedStateList() {
        assertThat(Arrays.stream(JobStatus.values()).map(JobStatus::wireName))
                .containsExactly("queued", "running", "succeeded", "failed", "canceled");
        for (JobStatus status : JobStatus.values()) {
            assertThat(JobStatus.fromWireName(status.wireName())).isSameAs(status);
        }
        assertThatThrownBy(() -> JobStatus.fromWireName("QUEUED")).hasMessageContaining("QUEUED");
    }

    @Test
    void onlySucceededFailedAndCanceledAreFinished() {
        assertThat(Arrays.stream(JobStatus.values()).filter(JobStatus::finished))
                .containsExactly(JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELED);
    }
}
