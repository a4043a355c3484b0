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
