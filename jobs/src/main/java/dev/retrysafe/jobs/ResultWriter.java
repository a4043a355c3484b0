package dev.retrysafe.jobs;

import java.io.IOException;
import java.io.OutputStream;

/** Writes a result that is too large to hold in memory; see {@link JobOutput#streamed}. */
@FunctionalInterface
public interface ResultWriter {

    /**
     * Writes the whole result to {@code out}. Runs on the worker's thread while the job still
     * counts as running, so it may call {@link JobContext#progress(int)} and
     * {@link JobContext#checkpoint()}. Need not close {@code out}.
     */
    void writeTo(OutputStream out) throws IOException;
}
