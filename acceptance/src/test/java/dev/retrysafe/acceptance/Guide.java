package dev.retrysafe.acceptance;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The runnable steps of a Markdown guide, by its fence convention: a {@code ```sh} block is run
 * in a shell, a {@code ```sh server} block starts the server with the command it holds, and an
 * {@code ```output} block right after either is the output it claims. Fences in other languages
 * are prose. A fence whose info string starts with {@code sh} but is neither of the two (a typo
 * such as {@code sh sever}) is an error rather than silently prose, and so is an output block
 * that follows no runnable block. Immutable.
 *
 * @param steps the runnable blocks, in order
 */
record Guide(List<Step> steps) {

    private static final Pattern FENCE = Pattern.compile("^```(.*)$");
    private static final Pattern SERVER_COMMAND = Pattern.compile("\\./run(?: [A-Za-z0-9_./=-]+)*");
    private static final Pattern URL_HOST = Pattern.compile("://([^/:\"'\\s$]*)");

    /** What a block is for. */
    enum Kind {
        /** Run in the shell session. */
        RUN,
        /** Start the server with this {@code ./run} command line. */
        SERVER
    }

    /**
     * One runnable block.
     *
     * @param kind what to do with it
     * @param text its text, exactly as written (without the fences)
     * @param expectedOutput the output block that follows it, or {@code null}
     * @param line the line of its opening fence, 1-based
     */
    record Step(Kind kind, String text, @Nullable String expectedOutput, int line) {

        /** The words of a server block's command line: {@code ./run} and its arguments. */
        List<String> serverCommand() {
            return List.of(text.strip().split(" "));
        }

        /** {@code line N} and the block, for failure messages. */
        String describe() {
            return "the " + (kind == Kind.SERVER ? "```sh server" : "```sh") + " block at line " + line + ":\n" + text;
        }
    }

    /** Copies the steps. */
    Guide {
        steps = List.copyOf(steps);
    }

    /**
     * The steps of {@code markdown}.
     *
     * @throws IllegalArgumentException if the guide breaks the convention: no runnable block, a
     *     misspelt {@code sh} fence, an unclosed fence, an output block after no runnable block, a
     *     server block that is not a plain {@code ./run} command line, a first server block that
     *     is not exactly {@code ./run} or a run block before it, or a URL that is not on this
     *     machine
     */
    static Guide parse(String markdown) {
        String[] lines = markdown.split("\n", -1);
        List<Step> steps = new ArrayList<>();
        boolean previousWasRunnable = false;
        for (int i = 0; i < lines.length; i++) {
            Matcher fence = FENCE.matcher(lines[i].stripTrailing());
            if (!fence.matches()) {
                continue;
            }
            int opening = i + 1;
            String info = fence.group(1).strip();
            StringBuilder text = new StringBuilder();
            i++;
            while (i < lines.length && !lines[i].stripTrailing().equals("```")) {
                text.append(lines[i]).append('\n');
                i++;
            }
            if (i >= lines.length) {
                throw new IllegalArgumentException("the fence at line " + opening + " is never closed");
            }
            switch (info) {
                case "sh" -> steps.add(new Step(Kind.RUN, text.toString(), null, opening));
                case "sh server" -> steps.add(new Step(Kind.SERVER, text.toString(), null, opening));
                case "output" -> {
                    if (!previousWasRunnable) {
                        throw new IllegalArgumentException("the ```output block at line " + opening
                                + " does not follow a ```sh or ```sh server block");
                    }
                    Step before = steps.removeLast();
                    steps.add(new Step(before.kind(), before.text(), text.toString(), before.line()));
                }
                default -> {
                    if (info.startsWith("sh")) {
                        throw new IllegalArgumentException("the fence at line " + opening + " says '" + info
                                + "': runnable blocks are ```sh or ```sh server");
                    }
                }
            }
            previousWasRunnable = info.equals("sh") || info.equals("sh server");
        }
        check(steps);
        return new Guide(steps);
    }

    private static void check(List<Step> steps) {
        if (steps.isEmpty()) {
            throw new IllegalArgumentException("the guide has no ```sh blocks: nothing to run");
        }
        Step first = steps.getFirst();
        if (first.kind() != Kind.SERVER || !first.text().strip().equals("./run")) {
            throw new IllegalArgumentException("the first runnable block must be ```sh server holding exactly "
                    + "./run, was " + first.describe());
        }
        for (Step step : steps) {
            if (step.kind() == Kind.SERVER
                    && !SERVER_COMMAND.matcher(step.text().strip()).matches()) {
                throw new IllegalArgumentException("a ```sh server block holds one ./run command line with plain "
                        + "arguments, was " + step.describe());
            }
            Matcher url = URL_HOST.matcher(step.text());
            while (url.find()) {
                String host = url.group(1);
                if (!host.equals("localhost") && !host.equals("127.0.0.1")) {
                    throw new IllegalArgumentException("commands talk only to localhost or 127.0.0.1, but "
                            + step.describe() + "\nnames the host '" + host + "'");
                }
            }
        }
    }
}
