package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.retrysafe.server.Api;
import dev.retrysafe.server.TestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * {@code GET /docs} in real headless Chromium against a server on 127.0.0.1: under the page's
 * strict Content-Security-Policy its script loads {@code /openapi.json} and renders it, an
 * operation with its parameters and responses and the Webhooks section with every event the
 * document lists, and no "Could not load" status is left. The screenshot {@code docs.png} is
 * written to {@code acceptance/target/screenshots/} ({@link Browser#SCREENSHOTS}). Every wait has
 * a deadline; nothing sleeps.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DocsBrowserTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String FAILED = "Could not load";

    private TestServer server;
    private Browser browser;
    private ChromeDriver driver;

    @BeforeAll
    void start() throws Exception {
        server = TestServer.h2().start();
        browser = Browser.start(1280, 2000);
        driver = browser.driver();
    }

    @AfterAll
    void stop() {
        try {
            if (browser != null) {
                browser.close();
            }
        } finally {
            if (server != null) {
                server.close();
            }
        }
    }

    @Test
    void thePageRendersTheOperationsAndTheWebhooksOfTheDocument() throws Exception {
        // given the document the page will render
        JsonNode document = new Api(server.baseUri(), null).get("/openapi.json").body();
        List<String> events = new ArrayList<>();
        document.path("webhooks").fieldNames().forEachRemaining(events::add);
        assertThat(events).isNotEmpty();

        // when a person opens /docs
        driver.get(server.uri("/docs").toString());

        // then it renders (or says it could not, which fails at once with the reason)
        browser.waitUntil(
                WAIT,
                d -> !d.findElements(By.id("op-createPayment")).isEmpty()
                        || status(d).contains(FAILED));
        assertThat(status(driver)).as("the page's loading status").doesNotContain(FAILED);
        assertThat(driver.findElements(By.id("status")))
                .as("the loading status is replaced by the reference")
                .isEmpty();
        assertThat(driver.findElement(By.tagName("body")).getText()).doesNotContain(FAILED);
        assertThat(driver.getTitle()).isEqualTo("Retrysafe API reference");
        assertThat(driver.findElement(By.id("title")).getText())
                .isEqualTo(document.at("/info/title").asText() + " "
                        + document.at("/info/version").asText());

        // the operation POST /v1/payments, with its key parameter, body and responses
        WebElement payment = driver.findElement(By.id("op-createPayment"));
        assertThat(payment.findElement(By.cssSelector("h3 .method")).getText()).isEqualToIgnoringCase("post");
        assertThat(payment.findElement(By.cssSelector("h3 .path")).getText()).isEqualTo("/v1/payments");
        assertThat(payment.findElement(By.cssSelector("h3 .summary")).getText()).isEqualTo("Create a payment");
        assertThat(payment.getText())
                .contains(
                        "Authorization: Bearer <API key>",
                        "Idempotency-Key",
                        "Request body",
                        "application/json",
                        "Responses");
        assertThat(payment.findElements(By.cssSelector(".response .status")))
                .extracting(WebElement::getText)
                .contains("201", "400", "409", "422", "429");
        assertThat(driver.findElement(By.cssSelector("nav a[href='#op-createPayment']"))
                        .getText())
                .isEqualTo("POST /v1/payments");

        // the Webhooks section, with each event of the document and its signature headers
        assertThat(driver.findElement(By.id("webhooks")).getText()).isEqualTo("Webhooks");
        for (String event : events) {
            WebElement hook = driver.findElement(By.id("webhook-" + event));
            assertThat(hook.findElement(By.cssSelector("h3 .path")).getText())
                    .as(event)
                    .isEqualTo(event);
            assertThat(hook.getText())
                    .as(event)
                    .contains("webhook-id", "webhook-timestamp", "webhook-signature", "Payload");
        }
        // (the navigation's headings are upper case by its style sheet: the text as written)
        assertThat(driver.findElements(By.cssSelector("nav h2")))
                .extracting(h -> h.getDomProperty("textContent"))
                .contains("Webhooks");
        browser.screenshot("docs.png");
    }

    /** The loading status line's text, or the empty string once the reference replaced it. */
    private static String status(WebDriver d) {
        List<WebElement> status = d.findElements(By.id("status"));
        return status.isEmpty() ? "" : status.getFirst().getText();
    }
}
