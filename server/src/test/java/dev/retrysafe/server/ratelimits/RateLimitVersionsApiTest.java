package dev.retrysafe.server.ratelimits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.retrysafe.server.Api;
import dev.retrysafe.server.TestServer;
import dev.retrysafe.server.cli.Main;
import dev.retrysafe.server.config.ConfigLoader;
import dev.retrysafe.server.config.RateLimitConfig;
import dev.retrysafe.testkit.FakeClock;
import dev.retrysafe.testkit.StructuredFields;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Versioned policy sets over real HTTP: an account pinned to the previous set {@code v1} (made
 * with {@code create-account --rate-limit-version v1}) is told it is deprecated and when it moves,
 * an account on {@code v2} is not, each spends its own set's quota, and at the sunset (the
 * server's clock moved, no restart) the pinned account is on {@code v2}.
 */
class RateLimitVersionsApiTest {

    private static final Instant DEPRECATED_AT = Instant.parse("2026-12-01T00:00:00Z");
    private static final Instant SUNSET = Instant.parse("2027-03-31T00:00:00Z");
    private static final String V1_DOCS = "https://example.com/rate-limits/v1";
    private static final String V2_DOCS = "https://example.com/rate-limits/v2";

    private final FakeClock clock = new FakeClock(Instant.parse("2026-12-07T10:00:00Z"));

    @TempDir
    Path dataDir;

    @TempDir
    Path configDir;

    private static String config(Instant sunset, boolean allowShortNotice) {
        return """
                rate_limits:
                  store: memory
                  version: v2
                  docs_url: %s
                  allow_short_notice: %s
                  previous:
                    - version: v1
                      deprecated_at: %s
                      sunset: %s
                      docs_url: %s
                      policies:
                        - name: per_key
                          scope: api_key
                          quota: 5
                          window: 1h
                  policies:
                    - name: per_key
                      scope: api_key
                      quota: 3
                      window: 1h
                """.formatted(V2_DOCS, allowShortNotice, DEPRECATED_AT, sunset, V1_DOCS);
    }

    private Path write(String text) throws IOException {
        return Files.writeString(configDir.resolve("retrysafe.yaml"), text);
    }

    private TestServer.Builder server(Path configFile) {
        RateLimitConfig limits = ConfigLoader.load(configFile, Map.of()).rateLimits();
        return TestServer.h2(dataDir).clock(clock).rateLimits(limits);
    }

    /** {@code ./run create-account --rate-limit-version <version>} next to the running server. */
    private CliResult createAccount(Path configFile, String version) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(
                new String[] {
                    "create-account",
                    "--config",
                    configFile.toString(),
                    "--name",
                    "legacy",
                    "--rate-limit-version",
                    version
                },
                Map.of("RETRYSAFE_DATA_DIR", dataDir.toString()),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new CliResult(code, out.toString(StandardCharsets.UTF_8).strip(), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aPinnedV1AccountIsToldItsSetIsDeprecatedUntilItMovesToV2AtTheSunset() throws IOException {
        Path file = write(config(SUNSET, false));
        try (TestServer server = server(file).start()) {
            CliResult created = createAccount(file, "v1");
            assertThat(created.code()).as(created.err()).isZero();
            Api legacy = new Api(server.baseUri(), created.out());
            Api current = Api.of(server);

            // the v1 account: its own quota of 5, and every answer says it is deprecated
            for (int i = 0; i < 5; i++) {
                Api.Answer answer = legacy.get("/v1/payments");
                assertThat(answer.status()).isEqualTo(200);
                assertDeprecatedV1(answer);
            }
            Api.Answer refused = legacy.get("/v1/payments");
            assertThat(refused.status()).isEqualTo(429);
            assertThat(refused.body().path("policy").asText()).isEqualTo("per_key");
            assertDeprecatedV1(refused);

            // the v2 account: a quota of 3, and none of the deprecation headers
            for (int i = 0; i < 3; i++) {
                Api.Answer answer = current.get("/v1/payments");
                assertThat(answer.status()).isEqualTo(200);
                assertOnV2(answer);
            }
            assertThat(current.get("/v1/payments").status()).isEqualTo(429);

            // the budget report names the set, where it goes and when
            Api.Answer report = legacy.get("/v1/rate_limit");
            assertThat(report.status()).isEqualTo(200);
            assertDeprecatedV1(report);
            assertThat(report.body().path("policy_set").path("version").asText())
                    .isEqualTo("v1");
            assertThat(report.body().path("policy_set").path("deprecated").asBoolean())
                    .isTrue();
            assertThat(report.body().path("policy_set").path("successor").asText())
                    .isEqualTo("v2");
            assertThat(report.body()
                            .path("policy_set")
                            .path("successor_docs_url")
                            .asText())
                    .isEqualTo(V2_DOCS);
            assertThat(report.body().path("policy_set").path("moves_at").asText())
                    .isEqualTo(SUNSET.toString());
            assertThat(report.body().path("policies").get(0).path("limit").asLong())
                    .isEqualTo(5);
            Api.Answer currentReport = current.get("/v1/rate_limit");
            assertThat(currentReport.body().path("policy_set").path("version").asText())
                    .isEqualTo("v2");
            assertThat(currentReport.body().path("policy_set").has("successor")).isFalse();

            // the sunset: the same server, its clock moved; the v1 account is on v2 now
            clock.set(SUNSET.minusSeconds(1));
            assertDeprecatedV1(legacy.get("/v1/rate_limit"));
            clock.set(SUNSET);
            for (int i = 0; i < 3; i++) {
                Api.Answer answer = legacy.get("/v1/payments");
                assertThat(answer.status()).isEqualTo(200);
                assertOnV2(answer);
                assertThat(answer.header("RateLimit-Policy")).contains(";q=3;");
            }
            assertThat(legacy.get("/v1/payments").status())
                    .as("v2's quota of 3, counted apart from what v1 spent")
                    .isEqualTo(429);
            Api.Answer moved = legacy.get("/v1/rate_limit");
            assertThat(moved.body().path("policy_set").path("version").asText()).isEqualTo("v2");
        }
    }

    @Test
    void createAccountRefusesAnUnknownVersionBeforeTouchingAnyDatabase() throws IOException {
        CliResult result = createAccount(write(config(SUNSET, false)), "v7");

        assertThat(result.code()).isEqualTo(Main.USAGE);
        assertThat(result.err()).contains("unknown version 'v7'").contains("v2, v1");
        assertThat(result.out()).isEmpty();
        CliResult malformed = createAccount(write(config(SUNSET, false)), "v 1");
        assertThat(malformed.code()).isEqualTo(Main.USAGE);
        assertThat(malformed.err()).contains("--rate-limit-version must be a version name");
        assertThat(dataDir).isEmptyDirectory();
    }

    @Test
    void aLowerQuotaWithLessThanNinetyDaysNoticeStopsTheStartUnlessAllowed() throws IOException {
        Instant soon = Instant.parse("2027-01-31T00:00:00Z"); // 54 days after the clock's now
        Path file = write(config(soon, false));

        assertThatThrownBy(() -> server(file).start().close())
                .hasMessageContaining("rate_limits.previous[0].sunset")
                .hasMessageContaining("lowers policy 'per_key' of set v1")
                .hasMessageContaining("5 per 1h, 5 at once -> 3 per 1h, 3 at once")
                .hasMessageContaining("54 days' notice")
                .hasMessageContaining("sunset " + soon)
                .hasMessageContaining("to 2027-03-07T10:00:00Z or later")
                .hasMessageContaining("rate_limits.allow_short_notice: true");

        try (TestServer allowed = server(write(config(soon, true))).start()) {
            assertThat(new Api(allowed.baseUri(), allowed.apiKey())
                            .get("/v1/payments")
                            .header("X-RateLimit-Policy"))
                    .isEqualTo("v2");
        }
    }

    private static void assertDeprecatedV1(Api.Answer answer) {
        assertThat(answer.header("X-RateLimit-Policy")).isEqualTo("v1");
        assertThat(answer.header("X-RateLimit-Policy-Docs")).isEqualTo(V1_DOCS);
        // RFC 9745: an sf-date item, read with a strict RFC 9651 parser
        StructuredFields.Item deprecation = StructuredFields.parseItem(answer.header("Deprecation"));
        assertThat(deprecation.value()).isEqualTo(new StructuredFields.Date(DEPRECATED_AT.getEpochSecond()));
        assertThat(deprecation.parameters()).isEmpty();
        // RFC 8594: an HTTP-date
        String sunset = answer.header("Sunset");
        assertThat(ZonedDateTime.parse(sunset, DateTimeFormatter.RFC_1123_DATE_TIME)
                        .toInstant())
                .isEqualTo(SUNSET);
        assertThat(sunset)
                .as("IMF-fixdate")
                .matches("[A-Z][a-z]{2}, \\d{2} [A-Z][a-z]{2} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT");
        assertThat(links(answer.header("Link")))
                .containsExactlyInAnyOrderEntriesOf(Map.of("deprecation", V2_DOCS, "sunset", V2_DOCS));
    }

    private static void assertOnV2(Api.Answer answer) {
        assertThat(answer.header("X-RateLimit-Policy")).isEqualTo("v2");
        assertThat(answer.header("X-RateLimit-Policy-Docs")).isEqualTo(V2_DOCS);
        assertThat(answer.header("Deprecation")).isNull();
        assertThat(answer.header("Sunset")).isNull();
        assertThat(answer.header("Link")).isNull();
    }

    private record CliResult(int code, String out, String err) {}

    private static final Pattern LINK = Pattern.compile("\\s*<([^>]*)>\\s*;\\s*rel=\"([^\"]*)\"\\s*");

    /** A Link field (RFC 8288) of links with only a quoted {@code rel}: relation to target; strict. */
    private static Map<String, String> links(@Nullable String field) {
        assertThat(field).isNotNull();
        Map<String, String> links = new LinkedHashMap<>();
        for (String link : field.split(",")) {
            Matcher m = LINK.matcher(link);
            assertThat(m.matches()).as("a link: " + link).isTrue();
            assertThat(links.put(m.group(2), m.group(1)))
                    .as("rel " + m.group(2) + " once")
                    .isNull();
        }
        return links;
    }
}
