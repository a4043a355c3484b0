package dev.retrysafe.server.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.server.Api;
import dev.retrysafe.server.TestServer;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code GET /docs}: the page, its script and its style sheet are served by the server itself,
 * under a Content-Security-Policy that allows nothing else (no inline script or style, no other
 * origin), and the script builds the page from text only (no HTML parsing of the document).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DocsPageTest {

    private static final Pattern ATTRIBUTE_URL = Pattern.compile("(?:src|href)=\"([^\"]*)\"");

    private TestServer server;
    private Api browser;

    @BeforeAll
    void start() {
        server = TestServer.h2().start();
        browser = new Api(server.baseUri(), null);
    }

    @AfterAll
    void stop() {
        server.close();
    }

    @Test
    void thePageLoadsOnlyItsOwnScriptAndStyleSheetUnderAStrictPolicy() {
        Api.Answer page = browser.get("/docs");

        assertThat(page.status()).isEqualTo(200);
        assertThat(page.contentType()).startsWith("text/html");
        assertStrictPolicy(page);
        String html = page.raw().body();
        assertThat(html)
                .contains(
                        "<script src=\"/docs/docs.js\" defer></script>",
                        "<link rel=\"stylesheet\" href=\"/docs/docs.css\">");
        assertThat(Pattern.compile("<script(?![^>]*\\ssrc=)", Pattern.CASE_INSENSITIVE)
                        .matcher(html)
                        .find())
                .as("an inline script")
                .isFalse();
        assertThat(Pattern.compile("\\son[a-z]+\\s*=|\\sstyle\\s*=|<style", Pattern.CASE_INSENSITIVE)
                        .matcher(html)
                        .find())
                .as("inline handlers or styles")
                .isFalse();
        Matcher urls = ATTRIBUTE_URL.matcher(html);
        while (urls.find()) {
            assertThat(urls.group(1))
                    .as("a link to this server only")
                    .startsWith("/")
                    .doesNotStartWith("//");
        }
    }

    @Test
    void theScriptAndStyleSheetAreServedWithTheirTypesAndNeverReachAnotherOrigin() {
        Api.Answer script = browser.get("/docs/docs.js");
        Api.Answer style = browser.get("/docs/docs.css");

        assertThat(script.status()).isEqualTo(200);
        assertThat(script.contentType()).startsWith("text/javascript");
        assertStrictPolicy(script);
        assertThat(style.status()).isEqualTo(200);
        assertThat(style.contentType()).startsWith("text/css");
        assertStrictPolicy(style);
        for (String text : List.of(script.raw().body(), style.raw().body())) {
            assertThat(text).doesNotContain("http://", "https://", "@import");
        }
        // everything from the document is written as text, never parsed as HTML
        assertThat(script.raw().body())
                .contains("fetch('/openapi.json'", "textContent", "'use strict'")
                .doesNotContain(
                        "innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function");
    }

    @Test
    void theDocumentThePageRendersIsServedAndAnUnknownFileIsAProblem() {
        Api.Answer document = browser.get("/openapi.json");
        Api.Answer unknown = browser.get("/docs/secrets.txt");

        assertThat(document.status()).isEqualTo(200);
        assertThat(document.body().path("paths").has("/v1/payments")).isTrue();
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.contentType()).startsWith("application/problem+json");
        assertThat(unknown.body().path("type").asText()).isEqualTo("/problems/not-found");
    }

    private static void assertStrictPolicy(Api.Answer answer) {
        String policy = answer.header("Content-Security-Policy");
        assertThat(policy)
                .isNotNull()
                .contains(
                        "default-src 'none'",
                        "script-src 'self'",
                        "style-src 'self'",
                        "connect-src 'self'",
                        "frame-ancestors 'none'")
                .doesNotContain("unsafe-inline", "unsafe-eval", "*", "http:", "https:", "data:");
        assertThat(answer.header("X-Content-Type-Options")).isEqualTo("nosniff");
    }
}
