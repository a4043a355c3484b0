package dev.retrysafe.server.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.server.Api;
import dev.retrysafe.server.TestServer;
import java.net.http.HttpRequest;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code /dashboard} and its files over HTTP, without a browser: content types, the security
 * headers, {@code 404} problems for anything else, and the rules that keep the page safe with
 * data from strangers (no inline script or style, nothing from another origin, no HTML parsing
 * of data in the script).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DashboardAssetsTest {

    private TestServer server;
    private Api anonymous;

    @BeforeAll
    void start() {
        server = TestServer.h2().start();
        anonymous = new Api(server.baseUri(), null);
    }

    @AfterAll
    void stop() {
        server.close();
    }

    @ParameterizedTest
    @CsvSource({
        "/dashboard, text/html; charset=utf-8",
        "/dashboard/, text/html; charset=utf-8",
        "/dashboard/dashboard.js, text/javascript; charset=utf-8",
        "/dashboard/dashboard.css, text/css; charset=utf-8",
    })
    void pageAndFilesAreServedWithoutAKeyWithTheirTypeAndTheSecurityHeaders(String path, String contentType) {
        for (Api.Answer a : List.of(
                anonymous.get(path),
                anonymous.send(anonymous
                        .request(path)
                        .method("HEAD", HttpRequest.BodyPublishers.noBody())
                        .build()))) {
            assertThat(a.status()).as(a.raw().request().method() + " " + path).isEqualTo(200);
            assertThat(a.contentType().replace(" ", "")).isEqualToIgnoringCase(contentType.replace(" ", ""));
            assertThat(a.header("X-Content-Type-Options")).isEqualTo("nosniff");
            assertThat(a.header("Content-Security-Policy")).isEqualTo(DashboardAssets.CONTENT_SECURITY_POLICY);
            assertThat(a.header("X-Frame-Options")).isEqualTo("DENY");
            assertThat(a.header("Referrer-Policy")).isEqualTo("no-referrer");
        }
        assertThat(anonymous.get(path).raw().body()).isNotBlank();
    }

    @Test
    void policyAllowsOnlyThisOriginAndNothingInline() {
        String csp = DashboardAssets.CONTENT_SECURITY_POLICY;

        assertThat(csp)
                .startsWith("default-src 'self';")
                .contains(
                        "script-src 'self';",
                        "style-src 'self';",
                        "object-src 'none'",
                        "frame-ancestors 'none'",
                        "base-uri 'none'");
        assertThat(csp).doesNotContain("unsafe", "http:", "https:", "data:", "*", "blob:");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/dashboard/nope.js",
                "/dashboard/index.html",
                "/dashboard/dashboard.JS",
                "/dashboard/retrysafe-defaults.yaml",
                "/dashboard/a/b",
                "/dashboard/..",
                "/dashboard/dashboard.js/x"
            })
    void anythingElseUnderDashboardIsANotFoundProblem(String path) {
        Api.Answer a = anonymous.get(path);

        assertThat(a.status()).as(path + " -> " + a.raw().body()).isEqualTo(404);
        assertThat(a.contentType()).startsWith("application/problem+json");
        assertThat(a.body().get("type").asText()).isEqualTo("/problems/not-found");
        assertThat(a.raw().body()).doesNotContain("rate_limits");
    }

    @ParameterizedTest
    @ValueSource(strings = {"/dashboard/..%2Fretrysafe-defaults.yaml", "/dashboard/%2e%2e", "/dashboard/%2e%2e%2fv1"})
    void anAmbiguousEncodingIsRefusedAsAProblemBeforeAnyRoute(String path) {
        Api.Answer a = anonymous.get(path);

        assertThat(a.status()).isBetween(400, 499);
        assertThat(a.contentType()).startsWith("application/problem+json");
        assertThat(a.raw().body()).doesNotContain("rate_limits");
    }

    @Test
    void pageLoadsOnlyItsOwnFilesAndHasNoInlineScriptOrStyle() {
        String html = anonymous.get("/dashboard").raw().body();

        List<String> references = all(Pattern.compile("(?:src|href)=\"([^\"]*)\""), html);
        assertThat(references).containsExactlyInAnyOrder("/dashboard/dashboard.css", "/dashboard/dashboard.js");
        assertThat(all(Pattern.compile("<script([^>]*)>"), html))
                .singleElement()
                .satisfies(attrs -> assertThat(attrs).contains("src=\"/dashboard/dashboard.js\""));
        assertThat(html)
                .doesNotContainPattern("(?i)\\son[a-z]+=")
                .doesNotContainPattern("(?i)\\sstyle=")
                .doesNotContain("<style");
        assertThat(all(Pattern.compile("data-testid=\"([^\"]+)\""), html))
                .contains("api-key", "key-submit", "error", "endpoints", "events", "jobs", "rate-limits", "chart");
    }

    @Test
    void scriptNeverParsesDataAsMarkupNorCallsAnotherOrigin() {
        String js = anonymous.get("/dashboard/dashboard.js").raw().body();

        assertThat(js)
                .doesNotContain(
                        "innerHTML",
                        "outerHTML",
                        "insertAdjacentHTML",
                        "document.write",
                        "eval(",
                        "new Function",
                        "localStorage",
                        "setAttribute('style'",
                        "innerText");
        assertThat(all(Pattern.compile("(https?://[^'\"\\s]*)"), js))
                .as("no URL but the SVG namespace")
                .containsOnly("http://www.w3.org/2000/svg");
        assertThat(js).contains("textContent", "sessionStorage", "'Authorization': 'Bearer '", "'Idempotency-Key'");
        List<String> fetched = all(Pattern.compile("api\\('(?:GET|POST)', '([^']*)'"), js);
        assertThat(fetched).isNotEmpty().allSatisfy(path -> assertThat(path).startsWith("/v1/"));
    }

    @Test
    void anEndpointCardShowsAPauseAndTogglesItWithTheApi() {
        String js = anonymous.get("/dashboard/dashboard.js").raw().body();

        assertThat(js)
                .contains(
                        "e.status === 'paused'",
                        "text: 'paused'",
                        "testid: 'endpoint-pause-toggle'",
                        "encodeURIComponent(e.id) + '/pause')",
                        "encodeURIComponent(e.id) + '/resume')");
    }

    private static List<String> all(Pattern pattern, String text) {
        Matcher m = pattern.matcher(text);
        List<String> out = new java.util.ArrayList<>();
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }
}
