package com.example.payments.reports;

import com.example.payments.api.FieldError;
import com.example.payments.api.InvalidRequestException;
import com.example.payments.api.NotFoundException;
import com.example.payments.auth.CurrentAccount;
import dev.retrysafe.spring.Idempotent;
import dev.retrysafe.spring.JobAccepted;
import dev.retrysafe.spring.RateLimited;
import dev.retrysafe.spring.RetrysafeJobs;
import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.http.ResponseEntity;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /v1/reports} answers {@code 202} with the job; {@code GET /v1/jobs/{id}} follows it. */
@RestController
class ReportController {

    private final RetrysafeJobs jobs;

    ReportController(RetrysafeJobs jobs) {
        this.jobs = jobs;
    }

    /** Starts a {@code payments_csv} report of the caller's payments. */
    @PostMapping(path = "/v1/reports", consumes = "application/json")
    @Idempotent
    @RateLimited("reports")
    @Transactional
    ResponseEntity<Map<String, @Nullable Object>> create(
            HttpServletRequest http, @RequestBody Map<String, @Nullable Object> body) {
        Object kind = body.get("kind");
        if (!"payments_csv".equals(kind)) {
            throw new InvalidRequestException(List.of(new FieldError("kind", "must be payments_csv")));
        }
        return JobAccepted.at("/v1/jobs", jobs.enqueue(CurrentAccount.of(http), "payments_csv", "{}"));
    }

    /** The caller's job, as the server shows it. */
    @GetMapping("/v1/jobs/{id}")
    ResponseEntity<Map<String, @Nullable Object>> job(HttpServletRequest http, @PathVariable String id) {
        return jobs.find(CurrentAccount.of(http), id)
                .map(job -> JobAccepted.of(job, java.net.URI.create("/v1/jobs/" + job.id())))
                .map(accepted -> ResponseEntity.ok().body(accepted.getBody()))
                .orElseThrow(() -> new NotFoundException("job"));
    }
}
