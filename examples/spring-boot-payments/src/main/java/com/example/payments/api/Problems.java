package com.example.payments.api;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;

/**
 * Problem details with the Retrysafe server's shape: {@code type} is {@code /problems/<slug>},
 * and every problem says whether retrying the same request can help ({@code retryable}).
 */
public final class Problems {

    private Problems() {}

    /** A problem of type {@code /problems/<slug>}. */
    public static ProblemDetail of(HttpStatus status, String slug, String title, String detail, boolean retryable) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setType(URI.create("/problems/" + slug));
        problem.setTitle(title);
        problem.setProperty("retryable", retryable);
        return problem;
    }

    /**
     * The JSON members of {@code problem} in the order of RFC 9457, for code that writes a
     * problem outside Spring MVC (a servlet filter), where no message converter flattens it.
     */
    public static Map<String, Object> members(ProblemDetail problem) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", problem.getType().toString());
        m.put("title", problem.getTitle() == null ? "" : problem.getTitle());
        m.put("status", problem.getStatus());
        m.put("detail", problem.getDetail() == null ? "" : problem.getDetail());
        if (problem.getProperties() != null) {
            m.putAll(problem.getProperties());
        }
        return m;
    }
}
