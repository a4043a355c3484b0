/**
 * Reports as asynchronous jobs: {@code POST /v1/reports} answers {@code 202} with a job at once,
 * the {@code jobs} module's workers build the CSV in any instance, and {@code /v1/jobs/{id}}
 * tracks, cancels and downloads it. {@code report.succeeded} and {@code report.failed} events go
 * through the webhook outbox in the transaction that finishes the job.
 */
@NullMarked
package dev.retrysafe.server.reports;

import org.jspecify.annotations.NullMarked;
