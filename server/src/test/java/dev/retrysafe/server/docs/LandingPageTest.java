package dev.retrysafe.server.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.server.Api;
import dev.retrysafe.server.TestServer;
import dev.retrysafe.testkit.PostgresTestDatabase;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code GET /}: the start page that the banner prints, once a {@code 404} problem. A browser
 * gets a page in the dashboard's style linking the dashboard and the docs and saying where the
 * demo key is; a client that asks for JSON gets the same as a small index.
 */
class LandingPageTest {

    private static final Pattern HREF = Pattern.compile("href=\"([^\"]*)\"");

    @Test
    void aBrowserGetsAPageLinkingTheDashboardTheDocsAndTheDemoKeyFile() {
        try (TestServer server = TestServer.h2().start()) {
            Api browser = new Api(server.baseUri(), null);
            Api.Answer page = browser.send(browser.request("/")
                    .header("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
                    .GET()
                    .build());

            assertThat(page.status()).isEqualTo(200);
            assertThat(page.contentType()).startsWith("text/html");
            assertThat(page.header("Vary")).isEqualTo("Accept");
            assertThat(page.header("Content-Security-Policy")).contains("default-src 'none'");
            String html = page.raw().body();
            Path keyFile = server.config()
                    .dataDir()
                    .resolve("demo-api-key")
                    .toAbsolutePath()
                    .normalize();
            assertThat(html)
                    .contains("<link rel=\"stylesheet\" href=\"/dashboard/dashboard.css\">")
                    .contains(keyFile.toString())
                    .doesNotContain("{{")
                    .doesNotContain("<script");
            List<String> links = hrefs(html);
            assertThat(links).contains("/dashboard", "/docs", "/openapi.json");
            for (String link : links) {
                assertThat(browser.get(link).status()).as("GET %s", link).isEqualTo(200);
            }
            assertThat(browser.send(browser.request("/")
                                    .method("HEAD", HttpRequest.BodyPublishers.noBody())
                                    .build())
                            .status())
                    .isEqualTo(200);
        }
    }

    @Test
    void aClientAskingForJsonGetsTheLinksAsJson() {
        try (TestServer server = TestServer.h2().start()) {
            Api client = new Api(server.baseUri(), null);
            Api.Answer index = client.send(client.request("/")
                    .header("Accept", "application/json")
                    .GET()
                    .build());

            assertThat(index.status()).isEqualTo(200);
            assertThat(index.contentType()).startsWith("application/json");
            assertThat(index.body().at("/links/dashboard").asText()).isEqualTo("/dashboard");
            assertThat(index.body().at("/links/docs").asText()).isEqualTo("/docs");
            assertThat(index.body().at("/demo_api_key_file").asText())
                    .isEqualTo(server.config()
                            .dataDir()
                            .resolve("demo-api-key")
                            .toAbsolutePath()
                            .normalize()
                            .toString());
        }
    }

    @Test
    void onPostgresThePageSaysHowToMakeAnAccountInsteadOfAKeyFile() {
        try (PostgresTestDatabase db = PostgresTestDatabase.create();
                TestServer server = TestServer.postgres(db).start()) {
            Api client = new Api(server.baseUri(), null);

            assertThat(client.get("/").raw().body())
                    .contains("./run create-account")
                    .doesNotContain("demo-api-key");
            assertThat(client.send(client.request("/")
                                    .header("Accept", "application/json")
                                    .GET()
                                    .build())
                            .body()
                            .has("demo_api_key_file"))
                    .isFalse();
        }
    }

    @ParameterizedTest(name = "Accept: {0} -> JSON {1}")
    @CsvSource(
            delimiter = '|',
            nullValues = "null",
            value = {
                "null|false",
                "*/*|false",
                "application/json|true",
                "application/json;charset=utf-8|true",
                "APPLICATION/JSON|true",
                "text/html,application/json;q=0.9|false",
                "application/json, text/html;q=0.5|true",
                "text/html;q=0.5, application/json;q=0.5|false",
                "application/json;q=0|false",
                "application/json;q=abc|false",
                "application/*|false",
                "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8|false"
            })
    void jsonOnlyWhenAskedForAboveHtml(String accept, boolean json) {
        assertThat(LandingPage.prefersJson(accept)).isEqualTo(json);
    }

    private static List<String> hrefs(String html) {
        List<String> links = new ArrayList<>();
        Matcher m = HREF.matcher(html);
        while (m.find()) {
            links.add(m.group(1));
        }
        return links;
    }
}
