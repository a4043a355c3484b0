package dev.retrysafe.jobs;

/** What {@link Jobs#result(String, String)} found. */
public sealed interface ResultLookup {

    /** No job with that id belongs to that owner. */
    record NotFound() implements ResultLookup {}

    /**
     * The job has no result: it is queued or running, or it failed or was canceled.
     *
     * @param job the job
     */
    record NotReady(Job job) implements ResultLookup {}

    /**
     * The job succeeded but its result is past its retention (purged or about to be).
     *
     * @param job the job
     */
    record Expired(Job job) implements ResultLookup {}

    /**
     * The result can be downloaded with {@link Jobs#writeResult}.
     *
     * @param job         the job
     * @param contentType the result's media type
     * @param size        the result's length in bytes
     */
    record Ready(Job job, String contentType, long size) implements ResultLookup {}
}
