package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.retrysafe.server.Api;
import dev.retrysafe.server.ScriptedReceiver;
import dev.retrysafe.server.TestServer;
import dev.retrysafe.server.config.ServerConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
import org.openqa.selenium.Dimension;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard in real headless Chromium against a server on 127.0.0.1 whose webhooks go to
 * receivers on 127.0.0.1 with a retry schedule of two attempts 50 ms apart. A user enters the
 * key, sees a failed delivery and its attempts, replays it and sees the new attempt; recovers an
 * endpoint's failed deliveries; sees a report's job with its state; a stranger's response that is
 * markup shows as text and runs nothing; API errors show their problem. Every wait has a
 * deadline; nothing sleeps. The screenshots ({@code dashboard.png}, {@code dashboard-phone.png},
 * {@code dashboard-xss.png}, {@code dashboard-live.png}, {@code dashboard-recover.png},
 * {@code dashboard-jobs.png}, {@code dashboard-jobs-narrow.png}) are written to {@code acceptance/target/screenshots/}
 * ({@link Browser#SCREENSHOTS}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DashboardBrowserTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String SCRIPT = "<script>window.pwned=1</script>";
    private static final String IMG = "\"><img src=x onerror=\"window.pwned=1\">";

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
        receiver = ScriptedReceiver.start(500, "receiver is down");
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
    void aFailedDeliveryIsReplayedWithTheButtonAndItsNewAttemptShows() throws Exception {
        // given a delivery that failed both of its attempts with 500
        Api api = Api.of(server);
        String endpoint = endpoint(api);
        Delivered failed = failedDelivery(api, endpoint, 2);

        // when the user opens the dashboard with the key and opens the event
        open(server.apiKey());
        showDeliveries(failed.eventId());

        // then the delivery shows as failed, with both attempts, their status and the response
        By delivery = delivery(failed.deliveryId());
        waitUntil(d -> text(d, delivery, "delivery-status").equals("failed")
                && attempts(d, delivery).size() == 2);
        for (WebElement attempt : attempts(driver, delivery)) {
            assertThat(within(attempt, "attempt-outcome")).isEqualTo("http_error");
            assertThat(within(attempt, "attempt-status")).isEqualTo("500");
            assertThat(within(attempt, "attempt-response")).isEqualTo("receiver is down");
            assertThat(within(attempt, "attempt-latency")).endsWith(" ms");
        }
        assertThat(text(driver, delivery, "delivery-next-attempt"))
                .as("no retry left")
                .isEqualTo("\u2014");
        waitUntil(d -> text(d, endpointCard(endpoint), "endpoint-health").contains("0 of 2 attempts"));
        assertThat(driver.findElements(By.cssSelector("[data-testid='chart-bar'][data-outcome='http_error']")))
                .isNotEmpty();
        assertThat(driver.findElements(By.cssSelector("[data-testid='rate-limit']")))
                .isNotEmpty();

        // when the receiver is fixed and the user presses replay
        receiver.answer(200, "thanks");
        driver.findElement(delivery).findElement(testId("delivery-replay")).click();

        // then a third attempt, successful, appears and the delivery has succeeded
        waitUntil(d -> text(d, delivery, "delivery-status").equals("succeeded")
                && attempts(d, delivery).size() == 3);
        WebElement third = attempts(driver, delivery).get(2);
        assertThat(within(third, "attempt-outcome")).isEqualTo("success");
        assertThat(within(third, "attempt-status")).isEqualTo("200");
        assertThat(within(third, "attempt-response")).isEqualTo("thanks");
        waitUntil(d -> text(d, endpointCard(endpoint), "endpoint-health").contains("1 of 3 attempts"));
        assertThat(driver.findElement(testId("notice")).getText()).contains(failed.deliveryId());
        assertThat(driver.findElement(testId("error")).isDisplayed()).isFalse();
        assertThat(receiver.requests()).isEqualTo(3);

        Path png = screenshot("dashboard.png");
        byte[] bytes = Files.readAllBytes(png);
        assertThat(bytes.length).isGreaterThan(1000);
        assertThat(java.util.Arrays.copyOf(bytes, 8))
                .as("a PNG file")
                .containsExactly(0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n');

        // and on a phone's width the page fits: nothing wider than the window but the tables' own scroll areas
        driver.manage().window().setSize(new Dimension(390, 2400));
        waitUntil(d -> ((Number) driver.executeScript("return window.innerWidth")).intValue() <= 390);
        assertThat(((Number) driver.executeScript("return document.documentElement.scrollWidth")).intValue())
                .isLessThanOrEqualTo(((Number) driver.executeScript("return window.innerWidth")).intValue());
        screenshot("dashboard-phone.png");
    }

    @Test
    void aResponseThatIsMarkupShowsAsTextAndRunsNothing() throws Exception {
        // given a receiver that answers with markup, a script and then an attribute breakout
        Api other = new Api(server.baseUri(), server.otherApiKey());
        receiver.queue(new ScriptedReceiver.Answer(500, SCRIPT), new ScriptedReceiver.Answer(500, IMG));
        Delivered failed = failedDelivery(other, endpoint(other), 2);

        // when the dashboard shows its attempts
        open(server.otherApiKey());
        showDeliveries(failed.eventId());
        By delivery = delivery(failed.deliveryId());
        waitUntil(d -> attempts(d, delivery).size() == 2);

        // then the snippets are literal text and neither ran nor became elements
        List<WebElement> attempts = attempts(driver, delivery);
        assertThat(within(attempts.get(0), "attempt-response")).isEqualTo(SCRIPT);
        assertThat(within(attempts.get(1), "attempt-response")).isEqualTo(IMG);
        assertThat(driver.findElements(By.tagName("img"))).isEmpty();
        assertThat(driver.findElements(By.tagName("script")))
                .singleElement()
                .satisfies(s -> assertThat(s.getAttribute("src")).endsWith("/dashboard/dashboard.js"));
        assertThat(driver.findElement(delivery).findElements(By.cssSelector("[data-testid='attempt-response'] *")))
                .as("no element inside a snippet")
                .isEmpty();
        assertThat(driver.executeScript("return typeof window.pwned")).isEqualTo("undefined");
        screenshot("dashboard-xss.png");
    }

    @Test
    void anApiErrorShowsItsProblemAndADisabledEndpointCanBeEnabled() throws Exception {
        // given a failed delivery whose endpoint was then disabled
        Api api = Api.of(server);
        String endpoint = endpoint(api);
        Delivered failed = failedDelivery(api, endpoint, 2);
        Api.Answer disabled = api.send(
                "PATCH",
                "/v1/webhook_endpoints/" + endpoint,
                "application/json",
                "{\"enabled\": false}".getBytes(StandardCharsets.UTF_8));
        assertThat(disabled.status()).isEqualTo(200);
        open(server.apiKey());
        showDeliveries(failed.eventId());
        By delivery = delivery(failed.deliveryId());
        waitUntil(d -> attempts(d, delivery).size() == 2);
        waitUntil(d -> text(d, endpointCard(endpoint), "endpoint-state").equals("disabled (manual)"));

        // when the user presses replay, the API refuses with a problem, which the page shows
        driver.findElement(delivery).findElement(testId("delivery-replay")).click();
        waitUntil(d -> d.findElement(testId("error")).isDisplayed());
        assertThat(driver.findElement(testId("error-text")).getText())
                .startsWith("Delivery cannot be retried now: ")
                .contains("is disabled");

        // when the user enables the endpoint from the dashboard
        driver.findElement(endpointCard(endpoint))
                .findElement(testId("endpoint-enable"))
                .click();

        // then it is enabled, and a replay now goes through
        waitUntil(d -> text(d, endpointCard(endpoint), "endpoint-state").equals("enabled"));
        assertThat(api.get("/v1/webhook_endpoints/" + endpoint)
                        .body()
                        .get("enabled")
                        .asBoolean())
                .isTrue();
        receiver.answer(204, "");
        driver.findElement(delivery).findElement(testId("delivery-replay")).click();
        waitUntil(d -> text(d, delivery, "delivery-status").equals("succeeded"));
    }

    @Test
    void aWrongKeyIsRefusedWithTheProblemAndTheKeyIsForgotten() {
        open("rs_wrong_" + "x".repeat(20));

        waitUntil(d -> d.findElement(testId("error")).isDisplayed()
                && d.findElement(testId("login")).isDisplayed());
        assertThat(driver.findElement(testId("error-text")).getText()).startsWith("The API key was not accepted");
        assertThat(driver.findElement(testId("app")).isDisplayed()).isFalse();
        assertThat(driver.executeScript("return window.sessionStorage.length")).isEqualTo(0L);
    }

    @Test
    void aNewEventShowsAtOnceThroughTheLiveStream() throws Exception {
        // given the dashboard open and subscribed to the account's live events
        Api api = Api.of(server);
        open(server.apiKey());
        waitUntil(d -> d.findElement(testId("live")).getText().equals("live"));

        // when a payment commits
        Api.Answer payment = api.post("/v1/payments", "{\"amount\": 4242, \"currency\": \"eur\"}");
        assertThat(payment.status()).isEqualTo(201);
        String eventId = api.get("/v1/events?limit=1")
                .body()
                .get("data")
                .get(0)
                .get("id")
                .asText();

        // then its event shows within seconds: while live, the page polls only every 30 s, so only
        // the stream's message can have brought it this soon
        new WebDriverWait(driver, Duration.ofSeconds(8))
                .until(d -> !d.findElements(By.cssSelector("[data-testid='event'][data-event-id='" + eventId + "']"))
                        .isEmpty());
        screenshot("dashboard-live.png");
    }

    @Test
    void recoveringAnEndpointSendsItsFailedDeliveryAgainAndTheNewAttemptShows() throws Exception {
        // given a delivery that failed both of its attempts with 500, and a receiver fixed since
        Api api = Api.of(server);
        String endpoint = endpoint(api);
        Delivered failed = failedDelivery(api, endpoint, 2);
        receiver.answer(200, "recovered");
        open(server.apiKey());
        showDeliveries(failed.eventId());
        By delivery = delivery(failed.deliveryId());
        waitUntil(d -> attempts(d, delivery).size() == 2);

        // when the user presses "Recover failed" on the endpoint's card, with the time it offers (24 hours ago)
        By card = endpointCard(endpoint);
        waitUntil(d -> !d.findElement(card)
                .findElement(testId("recover-since"))
                .getDomProperty("value")
                .isEmpty());
        press(card, "recover-submit");

        // then the notice says its one failed delivery is being sent again, and the new attempt shows
        waitUntil(d -> d.findElement(testId("notice")).isDisplayed());
        assertThat(driver.findElement(testId("notice")).getText())
                .isEqualTo("1 failed deliveries of " + endpoint + " are being sent again.");
        waitUntil(d -> text(d, delivery, "delivery-status").equals("succeeded")
                && attempts(d, delivery).size() == 3);
        WebElement third = attempts(driver, delivery).get(2);
        assertThat(within(third, "attempt-outcome")).isEqualTo("success");
        assertThat(within(third, "attempt-status")).isEqualTo("200");
        assertThat(within(third, "attempt-response")).isEqualTo("recovered");
        waitUntil(d -> text(d, card, "endpoint-health").contains("1 of 3 attempts"));
        assertThat(driver.findElement(testId("error")).isDisplayed()).isFalse();
        assertThat(receiver.requests()).isEqualTo(3);
        screenshot("dashboard-recover.png");
    }

    @Test
    void aReportStartedThroughTheApiShowsInTheJobsPanelWithItsState() throws Exception {
        // given the dashboard open
        Api api = Api.of(server);
        open(server.apiKey());
        waitUntil(d -> d.findElement(testId("status")).getText().startsWith("Updated"));

        // when a report is started
        Api.Answer started = api.post("/v1/reports", "{\"kind\": \"payments_csv\"}");
        assertThat(started.status()).as(started.raw().body()).isEqualTo(202);
        String jobId = started.body().get("id").asText();
        await().atMost(WAIT)
                .until(() -> api.get("/v1/jobs/" + jobId)
                        .body()
                        .get("status")
                        .asText()
                        .equals("succeeded"));

        // then its row shows in the jobs panel, with its kind and the state the API gives it
        By job = By.cssSelector("[data-testid='job'][data-job-id='" + jobId + "']");
        waitUntil(d -> text(d, job, "job-status").equals("succeeded"));
        WebElement row = driver.findElement(job);
        assertThat(row.getText()).contains(jobId, "payments_csv", "100%");
        assertThat(row.findElement(testId("job-status")).getText()).isEqualTo("succeeded");

        // and on a 1400 px wide window the jobs table fits its panel: no scroll bar of its own
        resize(1400);
        waitUntil(d -> text(d, job, "job-status").equals("succeeded"));
        assertThat(overflowing("[data-testid='jobs'], [data-testid='jobs'] .table-wrap, [data-testid='jobs'] table"))
                .as("jobs elements wider than their box at 1400 px")
                .isEmpty();
        assertThat(rightEdge("[data-testid='jobs'] table"))
                .as("the table's right edge within its panel's")
                .isLessThanOrEqualTo(rightEdge("section:has([data-testid='jobs'])"));
        screenshot("dashboard-jobs.png");

        // and at 420 px the page works: nothing wider than the window, every panel inside it,
        // the tables scroll within their panels
        resize(420);
        waitUntil(d -> text(d, job, "job-status").equals("succeeded"));
        long window = ((Number) driver.executeScript("return window.innerWidth")).longValue();
        assertThat(((Number) driver.executeScript("return document.documentElement.scrollWidth")).longValue())
                .as("the page's width at 420 px")
                .isLessThanOrEqualTo(window);
        assertThat(overflowing("body, main, section.panel"))
                .as("page elements wider than their box at 420 px")
                .isEmpty();
        assertThat(rightEdge("[data-testid='jobs']")).isLessThanOrEqualTo(window);
        screenshot("dashboard-jobs-narrow.png");
    }

    /** Resizes the window to {@code width} px wide and waits until the page is laid out at that width. */
    private void resize(int width) {
        driver.manage().window().setSize(new Dimension(width, 2200));
        waitUntil(d -> {
            long inner = ((Number) driver.executeScript("return window.innerWidth")).longValue();
            return inner <= width && inner >= width - 20;
        });
    }

    /**
     * The elements matching {@code selector} whose content is wider than their box
     * ({@code scrollWidth > clientWidth}), each as its test id or tag with both widths.
     */
    @SuppressWarnings("unchecked")
    private List<String> overflowing(String selector) {
        return (List<String>) driver.executeScript(
                "const out = [];"
                        + "for (const e of document.querySelectorAll(arguments[0])) {"
                        + "  if (e.scrollWidth > e.clientWidth) {"
                        + "    out.push((e.dataset.testid || e.className || e.tagName) + ': ' + e.scrollWidth"
                        + "        + ' > ' + e.clientWidth);"
                        + "  }"
                        + "}"
                        + "return out;",
                selector);
    }

    /** Where the first element matching {@code selector} ends on the right, in CSS px. */
    private double rightEdge(String selector) {
        return ((Number) driver.executeScript(
                        "return document.querySelector(arguments[0]).getBoundingClientRect().right;", selector))
                .doubleValue();
    }

    // --- helpers ----------------------------------------------------------------------------

    /** A delivery of a payment's event and the event. */
    private record Delivered(String deliveryId, String eventId) {}

    private String endpoint(Api client) {
        Api.Answer a = client.post(
                "/v1/webhook_endpoints",
                "{\"url\": \"" + receiver.url() + "\", \"event_types\": [\"payment.succeeded\"]}");
        assertThat(a.status()).as(a.raw().body()).isEqualTo(201);
        return a.body().get("id").asText();
    }

    /** Makes a payment and waits until its delivery to {@code endpoint} failed after {@code attempts} attempts. */
    private Delivered failedDelivery(Api client, String endpoint, int attempts) {
        Api.Answer payment =
                client.post("/v1/payments", "{\"amount\": 700, \"currency\": \"eur\", \"description\": \"dash\"}");
        assertThat(payment.status()).as(payment.raw().body()).isEqualTo(201);
        JsonNode[] found = new JsonNode[1];
        await().atMost(WAIT).until(() -> {
            JsonNode data = client.get("/v1/webhook_endpoints/" + endpoint + "/deliveries")
                    .body()
                    .get("data");
            found[0] = data.size() == 1 ? data.get(0) : null;
            return found[0] != null
                    && found[0].get("status").asText().equals("failed")
                    && found[0].get("attempt_count").asInt() == attempts;
        });
        return new Delivered(
                found[0].get("id").asText(), found[0].get("event_id").asText());
    }

    private void open(String key) {
        driver.get(server.uri("/dashboard").toString());
        waitUntil(d -> d.findElement(testId("api-key")).isDisplayed());
        driver.findElement(testId("api-key")).sendKeys(key);
        driver.findElement(testId("key-submit")).click();
    }

    private void showDeliveries(String eventId) {
        By event = By.cssSelector("[data-testid='event'][data-event-id='" + eventId + "']");
        waitUntil(d -> !d.findElements(event).isEmpty());
        driver.findElement(event).findElement(testId("event-toggle")).click();
        waitUntil(d ->
                !d.findElement(event).findElements(testId("event-deliveries")).isEmpty());
    }

    private static By testId(String id) {
        return By.cssSelector("[data-testid='" + id + "']");
    }

    private static By delivery(String id) {
        return By.cssSelector("[data-testid='delivery'][data-delivery-id='" + id + "']");
    }

    private static By endpointCard(String id) {
        return By.cssSelector("[data-testid='endpoint'][data-endpoint-id='" + id + "']");
    }

    private static List<WebElement> attempts(WebDriver d, By delivery) {
        List<WebElement> found = d.findElements(delivery);
        return found.isEmpty() ? List.of() : found.getFirst().findElements(testId("attempt"));
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

    private Path screenshot(String name) throws Exception {
        return browser.screenshot(name);
    }
}
