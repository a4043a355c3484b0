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
            assertThat(page.retryable()).as(filterType.slug()).isEqualTo(filterType.retryable());
        }
    }

    @Test
    void everyProblemTypeCarriesTheSameMembersRetryableIncluded() {
        for (ProblemType type : ProblemType.values()) {
            java.util.Map<String, Object> body =
                    Problem.of(type, "what happened").body();

            assertThat(body.keySet()).as(type.slug()).containsExactlyElementsOf(Problem.MEMBERS);
            assertThat(body.get("retryable")).as(type.slug()).isEqualTo(type.retryable());
            assertThat(Problem.of(type, "x").with("job", "j").body().keySet())
                    .as("extensions come after the members every problem has")
                    .startsWith(Problem.MEMBERS.toArray(String[]::new))
                    .endsWith("job");
        }
        assertThat(Problem.invalid(java.util.List.of(new FieldError("amount", "is required")))
                        .body())
                .as("a validation problem says it is not worth retrying unchanged")
                .containsEntry("retryable", false)
                .containsKey("errors");
    }

    @Test
    void retryableFollowsTheRulesOfTheProblemsPage() {
        // docs/problems.md: a 4xx other than 409 and 429 fails again unchanged; 5xx may pass later, but 505
        for (ProblemType type : ProblemType.values()) {
            boolean expected = switch (type) {
                case HTTP_VERSION_NOT_SUPPORTED -> false;
                // 409s that only the client can clear: a finished job, a disabled endpoint (an attempt
                // under way says retryable in the occurrence)
                case JOB_FINISHED, DELIVERY_NOT_RETRYABLE -> false;
                // the slow body: sent again, whole, it passes
                case BODY_TIMEOUT -> true;
                default -> type.status() >= 500 || type.status() == 409 || type.status() == 429;
            };
            assertThat(type.retryable()).as(type.slug()).isEqualTo(expected);
        }
    }

    @Test
    void anOccurrenceMayOverrideRetryableWithoutMovingIt() {
        Problem p = Problem.of(ProblemType.JOB_RESULT_NOT_READY, "x").with("retryable", false);

        assertThat(p.body()).containsEntry("retryable", false);
        assertThat(p.body().keySet()).containsExactlyElementsOf(Problem.MEMBERS);
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
