package dev.retrysafe.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class JobProblemTest {

    @Test
    void acceptsASlugATitleAndAnEmptyDetail() {
        JobProblem problem = new JobProblem("range-too-large", "Range too large", "");

        assertThat(problem.detail()).isEmpty();
        assertThat(new JobFailedException(problem).problem()).isSameAs(problem);
        assertThat(new JobFailedException(problem)).hasMessage("range-too-large: Range too large");
    }

    @Test
    void rejectsValuesThatDoNotFitTheirColumns() {
        assertThatThrownBy(() -> new JobProblem("Not A Slug", "t", "d")).hasMessageContaining("type");
        assertThatThrownBy(() -> new JobProblem("ok", "", "d")).hasMessageContaining("title");
        assertThatThrownBy(() -> new JobProblem("ok", "t".repeat(257), "d")).hasMessageContaining("title");
        assertThatThrownBy(() -> new JobProblem("ok", "t", "d".repeat(2049))).hasMessageContaining("detail");
        assertThatThrownBy(() -> new JobFailedException(null)).hasMessage("problem");
    }
}
