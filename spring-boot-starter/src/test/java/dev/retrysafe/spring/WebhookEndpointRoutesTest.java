package dev.retrysafe.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The optional endpoint routes, turned on under a path of the app's choosing. Real HTTP, H2. */
@SpringBootTest(
        classes = WebhookEndpointRoutesTest.App.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "retrysafe.webhooks.out.routes.enabled=true",
            "retrysafe.webhooks.out.routes.path=/admin/webhook_endpoints",
            "retrysafe.webhooks.out.ssrf.allow-private-targets=127.0.0.0/8",
            "retrysafe.webhooks.out.ssrf.require-https=false",
            "retrysafe.webhooks.out.dispatcher.enabled=false",
            "retrysafe.jobs.enabled=false"
        })
class WebhookEndpointRoutesTest {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) throws Exception {
        String url = TestSchemas.newH2();
        registry.add("spring.datasource.url", () -> url);
    }

    @LocalServerPort
    int port;

    @Test
    void createReadListAndDeleteWithTheServersShapes() throws Exception {
        HttpResponse<String> created = send("POST", "/admin/webhook_endpoints", """
                {"url":"http://127.0.0.1:9/hooks","event_types":["payment.succeeded"],"description":"mine"}""");
        assertThat(created.statusCode()).isEqualTo(201);
        String location = created.headers().firstValue("Location").orElseThrow();
        assertThat(location).startsWith("/admin/webhook_endpoints/we_");
        assertThat(created.body())
                .contains("\"object\":\"webhook_endpoint\"")
                .contains("\"event_types\":[\"payment.succeeded\"]")
                .contains("\"secret\":\"whsec_");

        HttpResponse<String> read = send("GET", location, null);
        assertThat(read.statusCode()).isEqualTo(200);
        assertThat(read.body()).doesNotContain("whsec_");
        assertThat(send("GET", "/admin/webhook_endpoints", null).body())
                .contains("\"object\":\"list\"")
                .contains("\"has_more\":false");
        assertThat(send("DELETE", location, null).body()).contains("\"deleted\":true");
        assertThat(send("GET", location, null).statusCode()).isEqualTo(404);
    }

    @Test
    void aUrlTheGuardRefusesIsA400Problem() throws Exception {
        HttpResponse<String> refused = send("POST", "/admin/webhook_endpoints", """
                {"url":"http://10.0.0.1/hooks","event_types":["*"]}""");
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.headers().firstValue("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(refused.body()).contains("NOT_PUBLIC");
    }

    @Test
    void customHeadersAreTakenAndShownByNameOnlyAndAReservedOneIsA400() throws Exception {
        HttpResponse<String> created = send("POST", "/admin/webhook_endpoints", """
                {"url":"http://127.0.0.1:9/hooks","event_types":["*"],"headers":{"X-Api-Key":"k-secret-1"}}""");
        assertThat(created.statusCode()).isEqualTo(201);
        assertThat(created.body()).contains("\"header_names\":[\"X-Api-Key\"]").doesNotContain("k-secret-1");
        String location = created.headers().firstValue("Location").orElseThrow();
        assertThat(send("GET", location, null).body())
                .contains("\"header_names\":[\"X-Api-Key\"]")
                .doesNotContain("k-secret-1");

        HttpResponse<String> refused = send("POST", "/admin/webhook_endpoints", """
                {"url":"http://127.0.0.1:9/hooks","event_types":["*"],"headers":{"Webhook-Signature":"v1,x"}}""");
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.body()).contains("Webhook-Signature").doesNotContain("v1,x");
    }

    @Test
    void patchReplacesTheHeadersAndNoReadShowsAValue() throws Exception {
        String location = created("""
                {"url":"http://127.0.0.1:9/hooks","event_types":["*"],"headers":{"X-Api-Key":"k-first-1"}}""");

        HttpResponse<String> patched = send("PATCH", location, """
                {"headers":{"X-Tenant":"t-second-2","X-Api-Key":"k-second-2"}}""");
        assertThat(patched.statusCode()).isEqualTo(200);
        assertThat(patched.body())
                .contains("\"header_names\":[\"X-Api-Key\",\"X-Tenant\"]")
                .doesNotContain("k-first-1")
                .doesNotContain("k-second-2")
                .doesNotContain("t-second-2");
        assertThat(send("GET", location, null).body())
                .contains("\"header_names\":[\"X-Api-Key\",\"X-Tenant\"]")
                .doesNotContain("second-2");
        assertThat(send("GET", "/admin/webhook_endpoints", null).body()).doesNotContain("second-2");

        // a PATCH without headers leaves them; null removes them all
        assertThat(send("PATCH", location, """
                {"description":"renamed"}""").body())
                .contains("\"description\":\"renamed\"")
                .contains("\"header_names\":[\"X-Api-Key\",\"X-Tenant\"]");
        assertThat(send("PATCH", location, """
                {"headers":null}""").body()).contains("\"header_names\":[]");
    }

    @Test
    void aReservedHeaderOnPatchIsA400NamingItNeverItsValue() throws Exception {
        String location = created("""
                {"url":"http://127.0.0.1:9/hooks","event_types":["*"],"headers":{"X-Api-Key":"k-kept-3"}}""");

        HttpResponse<String> refused = send("PATCH", location, """
                {"headers":{"X-Ok":"fine-value","Traceparent":"00-value-never-echoed"}}""");

        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.headers().firstValue("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(refused.body())
                .contains("Traceparent")
                .doesNotContain("value-never-echoed")
                .doesNotContain("fine-value");
        assertThat(send("GET", location, null).body())
                .as("a refused PATCH changes nothing")
                .contains("\"header_names\":[\"X-Api-Key\"]");
    }

    @Test
    void orderedRoundTripsThroughCreatePatchAndGet() throws Exception {
        HttpResponse<String> created = send("POST", "/admin/webhook_endpoints", """
                {"url":"http://127.0.0.1:9/hooks","event_types":["*"],"ordered":true}""");
        assertThat(created.statusCode()).isEqualTo(201);
        assertThat(created.body()).contains("\"ordered\":true");
        String location = created.headers().firstValue("Location").orElseThrow();
        assertThat(send("GET", location, null).body()).contains("\"ordered\":true");

        assertThat(send("PATCH", location, """
                {"ordered":false}""").body()).contains("\"ordered\":false");
        assertThat(send("GET", location, null).body()).contains("\"ordered\":false");
        assertThat(send("PATCH", location, """
                {"ordered":true}""").body()).contains("\"ordered\":true");

        String unordered = created("""
                {"url":"http://127.0.0.1:9/hooks","event_types":["*"]}""");
        assertThat(send("GET", unordered, null).body()).contains("\"ordered\":false");

        HttpResponse<String> notABoolean = send("PATCH", location, """
                {"ordered":"yes"}""");
        assertThat(notABoolean.statusCode()).isEqualTo(400);
        assertThat(notABoolean.body()).contains("ordered");
    }

    @Test
    void pauseAndResumeShowTheStatusAndPausedAt() throws Exception {
        String location = created("""
                {"url":"http://127.0.0.1:9/hooks","event_types":["*"]}""");
        assertThat(send("GET", location, null).body())
                .contains("\"status\":\"enabled\"")
                .contains("\"paused_at\":null");

        HttpResponse<String> paused = send("POST", location + "/pause", null);
        assertThat(paused.statusCode()).isEqualTo(200);
        assertThat(paused.body()).contains("\"status\":\"paused\"").containsPattern("\"paused_at\":\"20");
        assertThat(send("GET", location, null).body()).contains("\"status\":\"paused\"");
        assertThat(send("POST", location + "/pause", null).statusCode())
                .as("pausing again changes nothing")
                .isEqualTo(200);

        HttpResponse<String> resumed = send("POST", location + "/resume", null);
        assertThat(resumed.statusCode()).isEqualTo(200);
        assertThat(resumed.body()).contains("\"status\":\"enabled\"").contains("\"paused_at\":null");

        assertThat(send("POST", "/admin/webhook_endpoints/we_nope/pause", null).statusCode())
                .isEqualTo(404);
        assertThat(send("POST", "/admin/webhook_endpoints/we_nope/resume", null).statusCode())
                .isEqualTo(404);
    }

    @Test
    void patchChecksItsFieldsAndTheNewUrl() throws Exception {
        String location = created("""
                {"url":"http://127.0.0.1:9/hooks","event_types":["*"],"rate_limit":5}""");

        assertThat(send("PATCH", location, """
                {"colour":"red"}""").body()).contains("unknown field 'colour'");
        HttpResponse<String> internal = send("PATCH", location, """
                {"url":"http://10.0.0.1/hooks"}""");
        assertThat(internal.statusCode()).isEqualTo(400);
        assertThat(internal.body()).contains("NOT_PUBLIC");
        assertThat(send("PATCH", "/admin/webhook_endpoints/we_nope", """
                {"description":"x"}""").statusCode())
                .isEqualTo(404);

        HttpResponse<String> changed = send("PATCH", location, """
                {"url":"http://127.0.0.1:10/other","event_types":["payment.*"],"rate_limit":null,"enabled":false}""");
        assertThat(changed.statusCode()).isEqualTo(200);
        assertThat(changed.body())
                .contains("\"url\":\"http://127.0.0.1:10/other\"")
                .contains("\"event_types\":[\"payment.*\"]")
                .contains("\"rate_limit\":null")
                .contains("\"status\":\"disabled\"");
    }

    private String created(String body) throws Exception {
        HttpResponse<String> created = send("POST", "/admin/webhook_endpoints", body);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        return created.headers().firstValue("Location").orElseThrow();
    }

    private HttpResponse<String> send(String method, String path, String body) throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .header("Content-Type", "application/json")
                    .method(
                            method,
                            body == null
                                    ? HttpRequest.BodyPublishers.noBody()
                                    : HttpRequest.BodyPublishers.ofString(body));
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {}
}
