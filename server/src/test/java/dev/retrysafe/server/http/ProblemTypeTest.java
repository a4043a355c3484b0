package dev.retrysafe.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ProblemTypeTest {

    @Test
    void everyProblemTheIdempotencyFilterAnswersHasAPageWithTheSameStatusAndTitle() {
        for (dev.retrysafe.servlet.ProblemType filterType : dev.retrysafe.servlet.ProblemType.values()) {
            ProblemType page = ProblemType.bySlug(filterType.slug())
                    .orElseThrow(() -> new AssertionError("no page for the filter's problem " + filterType.slug()));
            assertThat(page.status()).as(filterType.slug()).isEqualTo(filterType.status());
            assertThat(page.title()).as(filterType.slug()).isEqualTo(filterType.title());
        }
    }

    @Test
    void slugsAreUniqueAndUrlSafe() {
        Set<String> seen = new HashSet<>();
        Arrays.stream(ProblemType.values()).forEach(t -> {
            assertThat(seen.add(t.slug())).as("duplicate slug " + t.slug()).isTrue();
            assertThat(t.slug()).matches("[a-z]+(-[a-z]+)*");
            assertThat(t.uri()).isEqualTo("/problems/" + t.slug());
        });
    }
}
