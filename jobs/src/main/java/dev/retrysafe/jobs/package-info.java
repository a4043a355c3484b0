/**
 * Durable asynchronous jobs, framework-free, on H2 and PostgreSQL: a job is enqueued (in the
 * caller's transaction if it likes), claimed with a lease by a worker of any instance, kept alive
 * by heartbeats while its handler runs, and finished once with a stored result or a problem.
 * Running jobs are canceled at their next checkpoint; jobs whose worker died are taken over after
 * their lease, a bounded number of times; results expire after a retention period and are purged;
 * each kind of job has a concurrency limit that holds across all instances. {@link
 * dev.retrysafe.jobs.Jobs} is the entry point; {@code docs/jobs.md} describes the design.
 */
@NullMarked
package dev.retrysafe.jobs;

import org.jspecify.annotations.NullMarked;
