package dev.retrysafe.webhooks;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The reference Standard Webhooks JavaScript library (npm {@code standardwebhooks}
 * {@value #VERSION}), run with node. Setup, not test traffic: {@link #install()} runs
 * {@code npm install} into {@code target/js} once (later runs find it there and stay off the
 * network, until {@code mvn clean}); the tests themselves only start local node processes. Node
 * and npm are required: without them the tests fail loudly, never skip ({@code ./test} installs
 * them on Debian).
 */
final class ReferenceLibrary {

    static final String VERSION = "1.1.1";

    private static final Path DIR = Path.of("target", "js").toAbsolutePath();
    private static final Path SCRIPT = DIR.resolve("interop.cjs");
    private static final long NPM_TIMEOUT_SECONDS = 300;
    private static final long NODE_TIMEOUT_SECONDS = 60;

    private ReferenceLibrary() {}

    /** Makes sure node, npm and the library are there; fails with what to install otherwise. */
    static synchronized void install() throws IOException, InterruptedException {
        requireTool("node");
        requireTool("npm");
        Path installed = DIR.resolve("node_modules/standardwebhooks/package.json");
        if (!Files.exists(installed) || !Files.readString(installed).contains("\"version\": \"" + VERSION + "\"")) {
            Files.createDirectories(DIR);
            Result npm = run(
                    List.of(
                            "npm",
                            "install",
                            "--prefix",
                            DIR.toString(),
                            "--no-audit",
                            "--no-fund",
                            "--no-save",
                            "standardwebhooks@" + VERSION),
                    new byte[0],
                    NPM_TIMEOUT_SECONDS);
            if (npm.exitCode() != 0 || !Files.exists(installed)) {
                throw new AssertionError("npm install standardwebhooks@" + VERSION + " into " + DIR + " failed (exit "
                        + npm.exitCode() + "); the interoperability tests need it.\n" + npm.stderr());
            }
        }
        try (InputStream script = ReferenceLibrary.class.getResourceAsStream("/js/interop.cjs")) {
            if (script == null) {
                throw new AssertionError("test resource js/interop.cjs is missing");
            }
            Files.copy(script, SCRIPT, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** One line of output per case, from {@code node interop.cjs mode}. */
    static List<String> run(String mode, List<Case> cases) throws IOException, InterruptedException {
        StringBuilder input = new StringBuilder();
        for (Case c : cases) {
            input.append(c.line()).append('\n');
        }
        Result node =
                run(List.of("node", SCRIPT.toString(), mode), input.toString().getBytes(UTF_8), NODE_TIMEOUT_SECONDS);
        if (node.exitCode() != 0) {
            throw new AssertionError(
                    "node " + SCRIPT + " " + mode + " failed (exit " + node.exitCode() + "):\n" + node.stderr());
        }
        List<String> lines = Arrays.asList(node.stdout().split("\n"));
        if (lines.size() != cases.size()) {
            throw new AssertionError("expected " + cases.size() + " lines from node, got " + lines.size() + ":\n"
                    + node.stdout() + node.stderr());
        }
        return lines;
    }

    /**
     * One delivery as the script reads it.
     *
     * @param secret the secret as text ({@code whsec_...})
     * @param id the webhook id
     * @param timestamp seconds since the epoch
     * @param signature the signature header (empty when signing)
     * @param body the exact body bytes
     */
    record Case(String secret, String id, long timestamp, String signature, byte[] body) {
        String line() {
            Base64.Encoder b64 = Base64.getEncoder();
            return String.join(
                    " ",
                    b64.encodeToString(secret.getBytes(UTF_8)),
                    b64.encodeToString(id.getBytes(UTF_8)),
                    b64.encodeToString(Long.toString(timestamp).getBytes(UTF_8)),
                    b64.encodeToString(signature.getBytes(UTF_8)),
                    b64.encodeToString(body));
        }
    }

    private record Result(int exitCode, String stdout, String stderr) {}

    private static void requireTool(String tool) throws InterruptedException {
        try {
            Result version = run(List.of(tool, "--version"), new byte[0], 60);
            if (version.exitCode() == 0) {
                return;
            }
        } catch (IOException e) {
            // not on the PATH: explained below
        }
        throw new AssertionError(tool + " is required by the Standard Webhooks interoperability tests and was not"
                + " found on the PATH. Install Node.js 20 and npm (Debian: apt-get install nodejs npm; ./test does"
                + " this when run as root).");
    }

    private static Result run(List<String> command, byte[] stdin, long timeoutSeconds)
            throws IOException, InterruptedException {
        Process process =
                new ProcessBuilder(command).directory(DIR.getParent().toFile()).start();
        // both pipes are drained while the process runs, so a chatty child cannot block on a full pipe
        CompletableFuture<byte[]> out = CompletableFuture.supplyAsync(() -> readAll(process.getInputStream()));
        CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> readAll(process.getErrorStream()));
        try (OutputStream in = process.getOutputStream()) {
            in.write(stdin);
        }
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not finish within " + timeoutSeconds + " s");
        }
        return new Result(process.exitValue(), new String(out.join(), UTF_8), new String(err.join(), UTF_8));
    }

    private static byte[] readAll(InputStream in) {
        try (in) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
