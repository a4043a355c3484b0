package dev.retrysafe.jobs;

import java.util.List;

/**
 * One page of an owner's jobs, newest first. Immutable and threadsafe.
 *
 * @param jobs    the page's jobs
 * @param hasMore whether older jobs follow the last one
 */
public record JobPage(List<Job> jobs, boolean hasMore) {

    /** Copies the list. */
    public JobPage {
        jobs = List.copyOf(jobs);
    }
}
