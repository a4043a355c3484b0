package dev.retrysafe.acceptance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One {@code bash} process that runs blocks of shell text one after another, like a user typing
 * them into one terminal: variables, functions and the working directory carry over. The
 * session runs with {@code set -euo pipefail}, so a failing command ends it, which fails the
 * block. Each block is written to a file and sourced with standard input from
 * {@code /dev/null} (no command can read the next block as its input), then a marker line says
 * where its output ends. Output is standard output and error together, as a terminal shows them.
 * {@link #close()} also kills whatever the blocks left running in the background. Not threadsafe.
 */
final class BashSession implements AutoCloseable {

    private static final Duration EXIT_DEADLINE = Duration.ofSeconds(10);

    private final Process bash;
    private final Writer commands;
    private final Path scratch;
    private final String marker = "__block_end_" + UUID.randomUUID().toString().replace("-", "") + "__";
    /** Output lines; empty at the end of the output. */
    private final BlockingQueue<Optional<String>> lines = new LinkedBlockingQueue<>();

    private final Thread reader;
    private int blocks;

    private BashSession(Process bash, Path scratch) {
        this.bash = bash;
        this.scratch = scratch;
        this.commands = new OutputStreamWriter(bash.getOutputStream(), StandardCharsets.UTF_8);
        this.reader = Thread.ofPlatform().daemon().name("bash-session-output").start(this::readOutput);
    }

    /**
     * Starts {@code bash} in {@code workDir} with exactly {@code env}; block files go to
     * {@code scratch}.
     */
    static BashSession start(Path workDir, Map<String, String> env, Path scratch) throws IOException {
        ProcessBuilder pb = new ProcessBuilder("bash", "--noprofile", "--norc")
                .directory(workDir.toFile())
                .redirectErrorStream(true);
        pb.environment().clear();
        pb.environment().putAll(env);
        BashSession session = new BashSession(pb.start(), scratch);
        session.send("set -euo pipefail\n");
        return session;
    }

    /**
     * Runs {@code text} and returns what it printed.
     *
     * @throws AssertionError if a command failed (bash ended) or it still runs after {@code deadline}
     */
    String run(String text, Duration deadline) throws IOException, InterruptedException {
        Path file = scratch.resolve("block-" + (++blocks) + ".sh");
        Files.writeString(file, text, StandardCharsets.UTF_8);
        send("source '" + file + "' < /dev/null\nprintf '\\n%s\\n' '" + marker + "'\n");
        StringBuilder output = new StringBuilder();
        long end = System.nanoTime() + deadline.toNanos();
        while (true) {
            Optional<String> line = lines.poll(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new AssertionError("still running after " + deadline + "; its output so far:\n" + output);
            }
            if (line.isEmpty()) {
                boolean ended = bash.waitFor(EXIT_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
                throw new AssertionError("a command failed: bash ended"
                        + (ended ? " with exit code " + bash.exitValue() : "") + "; its output:\n" + output);
            }
            if (line.get().equals(marker)) {
                return output.toString();
            }
            output.append(line.get()).append('\n');
        }
    }

    private void send(String text) throws IOException {
        if (!bash.isAlive()) {
            throw new AssertionError("bash has already ended with exit code " + bash.exitValue());
        }
        commands.write(text);
        commands.flush();
    }

    private void readOutput() {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(bash.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                lines.add(Optional.of(line));
            }
        } catch (IOException e) {
            lines.add(Optional.of("(reading the output failed: " + e + ")"));
        } finally {
            lines.add(Optional.empty());
        }
    }

    /**
     * Ends the session (as closing a terminal does) and kills what its blocks started and left
     * running; fails if bash itself does not end.
     */
    @Override
    public void close() {
        try {
            stop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            bash.destroyForcibly();
        }
    }

    private void stop() throws InterruptedException {
        // taken now: once bash has ended, its orphans are no longer its descendants
        List<ProcessHandle> started = bash.descendants().toList();
        try {
            commands.close();
        } catch (IOException e) {
            // bash has already gone; nothing to tell it
        }
        if (!bash.waitFor(EXIT_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
            bash.destroyForcibly();
        }
        for (ProcessHandle p : started) {
            p.destroyForcibly();
        }
        reader.join(EXIT_DEADLINE.toMillis());
        if (bash.isAlive()) {
            throw new AssertionError("bash (pid " + bash.pid() + ") did not end");
        }
    }
}
