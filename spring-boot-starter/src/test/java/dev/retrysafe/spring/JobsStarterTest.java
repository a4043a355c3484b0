package dev.retrysafe.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.jobs.Job;
import dev.retrysafe.jobs.JobHandler;
import dev.retrysafe.jobs.JobOutput;
import dev.retrysafe.jobs.JobStatus;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** A handler bean runs the jobs of its kind; the 202 helper answers Location and the job. Real HTTP, H2. */
@SpringBootTest(
        classes = JobsStarterTest.App.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"retrysafe.jobs.poll-interval=50ms", "retrysafe.webhooks.out.enabled=false"})
class JobsStarterTest {

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) throws Exception {
        String url = TestSchemas.newH2();
        registry.add("spring.datasource.url", () -> url);
    }

    @LocalServerPort
    int port;

    @Autowired
    RetrysafeJobs jobs;

    @Test
    void handlerBeanRunsTheJobAndTheHelperAnswers202WithLocationAndTheJob() throws Exception {
        HttpResponse<String> response;
        try (HttpClient http = HttpClient.newHttpClient()) {
            response = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/reports"))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"month\":\"2026-11\"}"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        }
        assertThat(response.statusCode()).isEqualTo(202);
        String location = response.headers().firstValue("Location").orElseThrow();
        assertThat(location).matches("/v1/jobs/job_[A-Za-z0-9_-]+");
        String id = location.substring("/v1/jobs/".length());
        assertThat(response.body())
                .contains("\"id\":\"" + id + "\"")
                .contains("\"object\":\"job\"")
                .contains("\"kind\":\"monthly_report\"")
                .contains("\"status\":\"queued\"");

        await().atMost(Duration.ofSeconds(20))
                .until(() -> jobs.find("acct_1", id).map(Job::status).orElse(null) == JobStatus.SUCCEEDED);
        Job done = jobs.find("acct_1", id).orElseThrow();
        assertThat(done.resultContentType()).isEqualTo("text/plain");
        assertThat(done.resultSize()).isEqualTo("report for {\"month\":\"2026-11\"}".length());
    }

    @Test
    void anEnqueueInARolledBackTransactionLeavesNoJob() {
        org.springframework.transaction.support.TransactionTemplate tx =
                new org.springframework.transaction.support.TransactionTemplate(transactionManager);
        String id = tx.execute(status -> {
            String made = jobs.enqueue("acct_1", "monthly_report", "{}").id();
            status.setRollbackOnly();
            return made;
        });
        assertThat(jobs.find("acct_1", id)).isEmpty();
    }

    @Autowired
    org.springframework.transaction.PlatformTransactionManager transactionManager;

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {

        @Bean
        @JobKind(value = "monthly_report", maxConcurrency = 2)
        JobHandler monthlyReport() {
            return context -> JobOutput.of(
                    "text/plain", ("report for " + context.job().params()).getBytes(StandardCharsets.UTF_8));
        }

        @Bean
        Reports reports(RetrysafeJobs jobs) {
            return new Reports(jobs);
        }
    }

    @RestController
    static class Reports {
        private final RetrysafeJobs jobs;

        Reports(RetrysafeJobs jobs) {
            this.jobs = jobs;
        }

        @PostMapping("/v1/reports")
        ResponseEntity<Map<String, @Nullable Object>> create(@RequestBody String params) {
            return JobAccepted.at("/v1/jobs", jobs.enqueue("acct_1", "monthly_report", params));
        }
    }
}
