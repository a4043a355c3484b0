package dev.retrysafe.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.retrysafe.liveevents.LiveEventsConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StreamsSectionTest {

    @TempDir
    Path dir;

    private ServerConfig load(String yaml) throws IOException {
        Path file = dir.resolve("config.yaml");
        Files.writeString(file, yaml);
        return ConfigLoader.load(file, Map.of());
    }

    @Test
    void defaultsAreTheDocumentedOnes() {
        LiveEventsConfig s = ConfigLoader.load(null, Map.of()).streams();

        assertThat(s)
                .isEqualTo(new LiveEventsConfig(
                        10,
                        20,
                        Duration.ofSeconds(10),
                        100,
                        4096,
                        1000,
                        1024 * 1024,
                        Duration.ofSeconds(30),
                        Duration.ofSeconds(10),
                        Duration.ofSeconds(10),
                        1000,
                        Duration.ofSeconds(1),
                        Duration.ofSeconds(30)));
    }

    @Test
    void aFileChangesWhatItNames() throws IOException {
        LiveEventsConfig s = load("""
                streams:
                  message_limit: 5
                  message_window: 1m
                  buffer_messages: 50
                """).streams();

        assertThat(s.messageLimit()).isEqualTo(5);
        assertThat(s.messageWindow()).isEqualTo(Duration.ofMinutes(1));
        assertThat(s.bufferMessages()).isEqualTo(50);
        assertThat(s.pingInterval()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void badValuesNameTheSetting() {
        assertThatThrownBy(() -> load("streams:\n  message_limit: 0\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("streams.message_limit")
                .hasMessageContaining("0");
        assertThatThrownBy(() -> load("streams:\n  max_message_bytes: 10\n"))
                .hasMessageContaining("streams.max_message_bytes");
        assertThatThrownBy(() -> load("streams:\n  pong_timeout: 2h\n"))
                .hasMessageContaining("streams.pong_timeout")
                .hasMessageContaining("2h");
        assertThatThrownBy(() -> load("streams:\n  connection_lease: 500ms\n"))
                .hasMessageContaining("streams.connection_lease")
                .hasMessageContaining("500ms");
        assertThatThrownBy(() -> load("streams:\n  buffer: 10\n")).hasMessageContaining("streams.buffer");
    }

    @Test
    void everySettingOfTheDefaultsFileIsDocumented() throws IOException {
        JsonNode defaults;
        try (InputStream in = ConfigLoader.class.getResourceAsStream(ConfigLoader.DEFAULTS_RESOURCE)) {
            defaults = new YAMLMapper().readTree(in);
        }
        String documentation = Files.readString(Path.of("..", "docs", "configuration.md"));

        List<String> undocumented = new ArrayList<>();
        for (String setting : settings(defaults, "")) {
            if (!documentation.contains("`" + setting + "`")) {
                undocumented.add(setting);
            }
        }

        assertThat(undocumented)
                .as("settings missing from docs/configuration.md")
                .isEmpty();
    }

    /**
     * Every setting's dotted name; a mapping of names to values (plans, shedding priorities) or a
     * list counts as one setting.
     */
    private static List<String> settings(JsonNode node, String prefix) {
        List<String> out = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = node.properties().iterator(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getValue().isObject()
                    && !e.getKey().equals("plans")
                    && !e.getKey().equals("priorities")) {
                out.addAll(settings(e.getValue(), prefix + e.getKey() + "."));
            } else {
                out.add(prefix + e.getKey());
            }
        }
        return out;
    }
}
