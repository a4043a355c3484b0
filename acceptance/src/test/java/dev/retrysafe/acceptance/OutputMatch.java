package dev.retrysafe.acceptance;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Whether a command's output is what a guide's {@code ```output} block claims, line by line:
 * a line that is exactly {@code ...} stands for any number of lines (none included), {@code ...}
 * inside a line for any text; everything else must be equal. The claim must cover the whole
 * output, first line to last. Line ends ({@code \r\n} or {@code \n}), trailing spaces and
 * trailing empty lines do not count.
 */
final class OutputMatch {

    private static final String ELLIPSIS = "...";

    private OutputMatch() {}

    /** Why {@code actual} is not what {@code expected} claims, or {@code null} when it is. */
    static @Nullable String mismatch(String expected, String actual) {
        List<String> want = lines(expected);
        List<String> got = lines(actual);
        List<@Nullable Pattern> patterns = new ArrayList<>();
        for (String line : want) {
            patterns.add(line.equals(ELLIPSIS) ? null : linePattern(line));
        }
        // matched[i][j]: want[i..] covers got[j..]
        boolean[][] matched = new boolean[want.size() + 1][got.size() + 1];
        matched[want.size()][got.size()] = true;
        for (int i = want.size() - 1; i >= 0; i--) {
            for (int j = got.size(); j >= 0; j--) {
                @Nullable Pattern p = patterns.get(i);
                matched[i][j] = p == null
                        ? matched[i + 1][j] || (j < got.size() && matched[i][j + 1])
                        : j < got.size() && p.matcher(got.get(j)).matches() && matched[i + 1][j + 1];
            }
        }
        if (matched[0][0]) {
            return null;
        }
        return "the output differs from the ```output block" + firstUnmatched(want, patterns, got) + "\n--- claimed:\n"
                + String.join("\n", want) + "\n--- printed:\n" + String.join("\n", got);
    }

    /** The first claimed line that matches no printed line at or after the previous match, as a hint. */
    private static String firstUnmatched(List<String> want, List<@Nullable Pattern> patterns, List<String> got) {
        int j = 0;
        for (int i = 0; i < want.size(); i++) {
            @Nullable Pattern p = patterns.get(i);
            if (p == null) {
                continue;
            }
            int k = j;
            while (k < got.size() && !p.matcher(got.get(k)).matches()) {
                k++;
            }
            if (k == got.size()) {
                return " (no printed line matches: " + want.get(i) + ")";
            }
            j = k + 1;
        }
        return " (every claimed line is there, but not in the claimed order or with other lines between them)";
    }

    private static Pattern linePattern(String line) {
        StringBuilder regex = new StringBuilder();
        int from = 0;
        for (int at = line.indexOf(ELLIPSIS); at >= 0; at = line.indexOf(ELLIPSIS, from)) {
            regex.append(Pattern.quote(line.substring(from, at))).append(".*");
            from = at + ELLIPSIS.length();
        }
        regex.append(Pattern.quote(line.substring(from)));
        return Pattern.compile(regex.toString(), Pattern.DOTALL);
    }

    private static List<String> lines(String text) {
        List<String> lines = new ArrayList<>();
        for (String line : text.replace("\r\n", "\n").split("\n", -1)) {
            lines.add(line.stripTrailing());
        }
        while (!lines.isEmpty() && lines.getLast().isEmpty()) {
            lines.removeLast();
        }
        return lines;
    }
}
