package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.retrysafe.server.Api;
import dev.retrysafe.server.ScriptedReceiver;
import dev.retrysafe.server.TestServer;
import dev.retrysafe.server.config.ServerConfig;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * Webhook delivery v2 on the dashboard, in real headless Chromium ({@link Browser}) against a
 * server on 127.0.0.1 whose webhooks go to a receiver on 127.0.0.1: an endpoint's card shows whether
 * it is ordered and the names of its custom headers (never a value), and its Pause / Resume button
 * holds and releases its deliveries, as the API then reports. Every wait has a deadline; nothing
 * sleeps. The screenshot {@code dashboard-paused.png} goes to {@link Browser#SCREENSHOTS}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DashboardPauseBrowserTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    /** A custom header's value: sent to the receiver, never shown. */
    private static final String VALUE = "k3y-v4lue-never-shown";

    private TestServer server;
    private ScriptedReceiver receiver;
    private Browser browser;
    private ChromeDriver driver;

    @BeforeAll
    void startServer() {
        server = TestServer.h2()
                .loopbackWebhooks(List.of(Duration.ZERO, Duration.ofMillis(50)))
                .rateLimits(ServerConfig.defaults().rateLimits())
                .start();
    }

    @AfterAll
    void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void startBrowser() throws Exception {
        receiver = ScriptedReceiver.start(200, "thanks");
        browser = Browser.start(1280, 2200);
        driver = browser.driver();
    }

    @AfterEach
    void quitBrowser() {
        try {
            if (browser != null) {
                browser.close();
            }
        } finally {
            receiver.close();
        }
    }

    @Test
    void pauseHoldsAnEndpointsDeliveriesUntilResumeAndItsCardShowsHeaderNamesAndOrdering() throws Exception {
        // given an ordered endpoint with two custom headers, a plain one, and the dashboard open
        Api api = Api.of(server);
        String endpoint = endpoint(
                api, ", \"ordered\": true, \"headers\": {\"X-Tenant\": \"acme\", \"X-Api-Key\": \"" + VALUE + "\"}");
        String plain = endpoint(api, "");
        open(server.apiKey());
        By card = endpointCard(endpoint);
        waitUntil(d -> text(d, card, "endpoint-state").equals("enabled")
                && text(d, card, "endpoint-pause-toggle").equals("Pause"));

        // then its card shows the header names as the API sorts them, as text, never a value, and that it is ordered
        WebElement shown = driver.findElement(card);
        assertThat(shown.findElements(testId("endpoint-header-name")))
                .extracting(e -> e.getDomProperty("textContent"))
                .containsExactly("X-Api-Key", "X-Tenant");
        assertThat(shown.findElements(By.cssSelector("[data-testid='endpoint-header-name'] *")))
                .as("no element inside a name")
                .isEmpty();
        assertThat(within(shown, "endpoint-headers")).isEqualTo("Custom headers: X-Api-Key, X-Tenant");
        assertThat(within(shown, "endpoint-ordered")).isEqualTo("ordered");
        waitUntil(d -> text(d, endpointCard(plain), "endpoint-headers").equals("Custom headers: none"));
        assertThat(text(driver, endpointCard(plain), "endpoint-ordered")).isEqualTo("unordered");
        assertThat(driver.getPageSource()).doesNotContain(VALUE, "acme");

        // when the user presses Pause
        press(card, "endpoint-pause-toggle");

        // then the card shows it paused, and so does the API
        waitUntil(d -> text(d, card, "endpoint-state").equals("paused")
                && text(d, card, "endpoint-pause-toggle").equals("Resume"));
        JsonNode paused = api.get("/v1/webhook_endpoints/" + endpoint).body();
        assertThat(paused.get("status").asText()).isEqualTo("paused");
        assertThat(paused.get("paused_at").isTextual()).as("paused_at set").isTrue();
        assertThat(api.get("/v1/webhook_endpoints/" + plain)
                        .body()
                        .get("status")
                        .asText())
                .as("the other endpoint is not paused")
                .isEqualTo("enabled");
        assertThat(driver.findElement(testId("notice")).getText()).contains(endpoint, "paused");

        // and a payment made meanwhile is held for it: pending, with no attempt due
        Api.Answer payment = api.post("/v1/payments", "{\"amount\": 700, \"currency\": \"eur\"}");
        assertThat(payment.status()).as(payment.raw().body()).isEqualTo(201);
        JsonNode held = awaitDelivery(api, endpoint, "pending");
        assertThat(held.get("next_attempt_at").isNull())
                .as("nothing due while paused")
                .isTrue();
        assertThat(held.get("attempt_count").asInt()).isZero();
        awaitDelivery(api, plain, "succeeded");
        browser.screenshot("dashboard-paused.png");

        // when the user presses Resume
        press(card, "endpoint-pause-toggle");

        // then the card and the API show it enabled again, and what waited is delivered
        waitUntil(d -> text(d, card, "endpoint-state").equals("enabled")
                && text(d, card, "endpoint-pause-toggle").equals("Pause"));
        JsonNode resumed = api.get("/v1/webhook_endpoints/" + endpoint).body();
        assertThat(resumed.get("status").asText()).isEqualTo("enabled");
        assertThat(resumed.get("paused_at").isNull()).isTrue();
        JsonNode delivered = awaitDelivery(api, endpoint, "succeeded");
        assertThat(delivered.get("id").asText()).isEqualTo(held.get("id").asText());
        assertThat(delivered.get("attempt_count").asInt()).isEqualTo(1);
        assertThat(receiver.requests()).as("one delivery to each endpoint").isEqualTo(2);
        assertThat(driver.findElement(testId("error")).isDisplayed()).isFalse();
    }

    // --- helpers ----------------------------------------------------------------------------

    /** Registers an endpoint of the receiver for {@code payment.succeeded} with the JSON members {@code more}. */
    private String endpoint(Api client, String more) {
        Api.Answer a = client.post(
                "/v1/webhook_endpoints",
                "{\"url\": \"" + receiver.url() + "\", \"event_types\": [\"payment.succeeded\"]" + more + "}");
        assertThat(a.status()).as(a.raw().body()).isEqualTo(201);
        assertThat(a.raw().body()).doesNotContain(VALUE);
        return a.body().get("id").asText();
    }

    /** Waits until the one delivery to {@code endpoint} has {@code status}; answers it. */
    private static JsonNode awaitDelivery(Api client, String endpoint, String status) {
        JsonNode[] found = new JsonNode[1];
        await().atMost(WAIT).until(() -> {
            JsonNode data = client.get("/v1/webhook_endpoints/" + endpoint + "/deliveries")
                    .body()
                    .get("data");
            found[0] = data.size() == 1 ? data.get(0) : null;
            return found[0] != null && found[0].get("status").asText().equals(status);
        });
        return found[0];
    }

    private void open(String key) {
        driver.get(server.uri("/dashboard").toString());
        waitUntil(d -> d.findElement(testId("api-key")).isDisplayed());
        driver.findElement(testId("api-key")).sendKeys(key);
        driver.findElement(testId("key-submit")).click();
    }

    private static By testId(String id) {
        return By.cssSelector("[data-testid='" + id + "']");
    }

    private static By endpointCard(String id) {
        return By.cssSelector("[data-testid='endpoint'][data-endpoint-id='" + id + "']");
    }

    private static String text(WebDriver d, By parent, String testId) {
        List<WebElement> found = d.findElements(parent);
        return found.isEmpty() ? "" : within(found.getFirst(), testId);
    }

    /** The text of the element {@code testId} inside {@code parent}, as the DOM has it (not as laid out). */
    private static String within(WebElement parent, String testId) {
        return parent.findElement(testId(testId)).getDomProperty("textContent");
    }

    /** Clicks the element {@code testId} inside {@code parent}, finding both again if the page redrew them first. */
    private void press(By parent, String testId) {
        waitUntil(d -> {
            d.findElement(parent).findElement(testId(testId)).click();
            return true;
        });
    }

    private void waitUntil(java.util.function.Function<WebDriver, Boolean> condition) {
        browser.waitUntil(WAIT, condition);
    }
}
