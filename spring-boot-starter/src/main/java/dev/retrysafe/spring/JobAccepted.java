package dev.retrysafe.spring;

import dev.retrysafe.jobs.Job;
import dev.retrysafe.jobs.JobRepresentation;
import java.net.URI;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.servlet.support.ServletUriComponentsBuilder;

/**
 * The answer to a request that started a job: {@code 202 Accepted}, {@code Location} naming the
 * job's resource, and the job as the Retrysafe server shows it ({@code id}, {@code object: "job"},
 * {@code kind}, {@code status}, times, {@code progress}, {@code result_url}, {@code error}, ...).
 *
 * <pre>{@code
 * @PostMapping("/v1/reports")
 * ResponseEntity<Map<String, Object>> report(@RequestBody String params) {
 *     return JobAccepted.at("/v1/jobs", jobs.enqueue("acct_1", "payments_csv", params));
 * }
 * }</pre>
 */
public final class JobAccepted {

    private JobAccepted() {}

    /**
     * {@code 202} with {@code Location: <collection>/<job id>}, e.g. {@code at("/v1/jobs", job)};
     * the collection is a path of this application.
     */
    public static ResponseEntity<Map<String, @Nullable Object>> at(String collection, Job job) {
        String base = collection.endsWith("/") ? collection.substring(0, collection.length() - 1) : collection;
        return of(job, URI.create(base + "/" + job.id()));
    }

    /** {@code 202} with {@code Location} under the current request's URI: {@code <request path>/<job id>}. */
    public static ResponseEntity<Map<String, @Nullable Object>> of(Job job) {
        URI location = ServletUriComponentsBuilder.fromCurrentRequestUri()
                .path("/{id}")
                .buildAndExpand(job.id())
                .toUri();
        return of(job, URI.create(location.getRawPath()));
    }

    /** {@code 202} with {@code Location: location}. */
    public static ResponseEntity<Map<String, @Nullable Object>> of(Job job, URI location) {
        return ResponseEntity.status(HttpStatus.ACCEPTED)
                .location(location)
                .body(JobRepresentation.of(job, location.toString()));
    }
}
