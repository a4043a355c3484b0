package dev.retrysafe.acceptance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The fence convention of runnable guides ({@link Guide}) and how claimed output is compared ({@link OutputMatch}). */
class GuideTest {

    private static final String START = "```sh server\n./run\n```\n";

    @Test
    void readsServerRunAndOutputBlocksInOrderAndSkipsOtherLanguages() {
        Guide guide = Guide.parse(START + "```output\nready\n```\nprose\n```java\nint x;\n```\n"
                + "```sh\ncurl -s http://localhost:${PORT:-8080}/health\n```\n```output\n{\"status\":\"ok\"}\n```\n"
                + "```sh server\n./run --config docs/local-webhooks.yaml\n```\n");

        assertThat(guide.steps())
                .extracting(Guide.Step::kind)
                .containsExactly(Guide.Kind.SERVER, Guide.Kind.RUN, Guide.Kind.SERVER);
        assertThat(guide.steps().get(0).expectedOutput()).isEqualTo("ready\n");
        assertThat(guide.steps().get(1).text()).isEqualTo("curl -s http://localhost:${PORT:-8080}/health\n");
        assertThat(guide.steps().get(1).expectedOutput()).isEqualTo("{\"status\":\"ok\"}\n");
        assertThat(guide.steps().get(1).line()).isEqualTo(11);
        assertThat(guide.steps().get(2).serverCommand())
                .containsExactly("./run", "--config", "docs/local-webhooks.yaml");
    }

    @Test
    void aGuideWithNothingToRunIsRefused() {
        assertThatThrownBy(() -> Guide.parse("# Title\n```java\nint x;\n```\n"))
                .hasMessageContaining("no ```sh blocks");
    }

    @Test
    void aGuideThatBreaksTheConventionIsRefused() {
        assertThatThrownBy(() -> Guide.parse("```sh\necho hi\n```\n")).hasMessageContaining("must be ```sh server");
        assertThatThrownBy(() -> Guide.parse("```sh server\n./run --config x.yaml\n```\n"))
                .hasMessageContaining("exactly ./run");
        assertThatThrownBy(() -> Guide.parse(START + "```sh sever\n./run\n```\n"))
                .hasMessageContaining("'sh sever'");
        assertThatThrownBy(() -> Guide.parse(START + "text\n```output\nx\n```\n```output\ny\n```\n"))
                .hasMessageContaining("does not follow");
        assertThatThrownBy(() -> Guide.parse(START + "```sh server\n./run; rm -rf /\n```\n"))
                .hasMessageContaining("plain arguments");
        assertThatThrownBy(() -> Guide.parse(START + "```sh\necho open\n")).hasMessageContaining("never closed");
    }

    @Test
    void commandsMayOnlyNameThisMachine() {
        assertThatThrownBy(() -> Guide.parse(START + "```sh\ncurl https://example.com/\n```\n"))
                .hasMessageContaining("'example.com'");
        assertThatThrownBy(() -> Guide.parse(START + "```sh\ncurl \"http://$HOST/\"\n```\n"))
                .hasMessageContaining("names the host ''");
        Guide.parse(START + "```sh\ncurl http://127.0.0.1:9000/ http://localhost/x\n```\n");
    }

    @Test
    void outputMatchesLineByLineWithEllipses() {
        String printed =
                "HTTP/1.1 201 Created\r\nDate: today\r\nIdempotent-Replayed: true\r\n\r\n{\"id\":\"pay_1\",\"amount\":500}";

        assertThat(OutputMatch.mismatch(
                        "HTTP/1.1 201 Created\n...\nIdempotent-Replayed: true\n...\n{\"id\":\"pay_...\",...}\n",
                        printed))
                .isNull();
        assertThat(OutputMatch.mismatch("...", printed)).isNull();
        assertThat(OutputMatch.mismatch("a\n...\nb\n", "a\nb\n\n"))
                .as("... may stand for no line")
                .isNull();
    }

    @Test
    void outputThatDiffersFromTheClaimIsAMismatch() {
        String printed = "HTTP/1.1 201 Created\nIdempotent-Replayed: true\n{\"id\":\"pay_1\",\"amount\":500}\n";

        assertThat(OutputMatch.mismatch("HTTP/1.1 201 Created\n...\n{\"id\":\"pay_...\",\"amount\":700}", printed))
                .contains("no printed line matches: {\"id\":\"pay_...\",\"amount\":700}");
        assertThat(OutputMatch.mismatch("HTTP/1.1 201 Created\n{\"id\":\"pay_...\",...}", printed))
                .as("lines between claimed lines need a ... line")
                .isNotNull();
        assertThat(OutputMatch.mismatch("Idempotent-Replayed: true\n...", printed))
                .as("the claim starts at the first line")
                .isNotNull();
        assertThat(OutputMatch.mismatch("...\nIdempotent-Replayed: true", printed))
                .as("and ends at the last")
                .isNotNull();
        assertThat(OutputMatch.mismatch("x", "")).contains("no printed line matches: x");
    }
}
