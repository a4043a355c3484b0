package dev.retrysafe.server.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.retrysafe.server.config.ConfigLoader;
import dev.retrysafe.testkit.RepositoryRoot;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/configuration.md} is a complete reference: its settings table names every key of
 * {@code retrysafe-defaults.yaml} (a mapping such as {@code rate_limits.plans} may be documented
 * as a whole) and nothing else, and each environment variable the loader reads is named in the
 * row of the setting it overrides, and no other.
 */
class ConfigurationDocTest {

    private static final Pattern ROW = Pattern.compile("(?m)^\\| `([a-z_.]+)` \\|[^|]*\\|([^|]*)\\|");
    private static final Pattern VARIABLE = Pattern.compile("`((?:PORT|RETRYSAFE_[A-Z_]+))`");

    @Test
    void everySettingIsDocumentedAndEveryDocumentedSettingExists() throws Exception {
        // given
        JsonNode defaults = defaults();
        Set<String> documented = new LinkedHashSet<>();
        Matcher row = ROW.matcher(Files.readString(RepositoryRoot.doc("configuration.md")));
        while (row.find()) {
            documented.add(row.group(1));
        }

        // when
        List<String> undocumented = new ArrayList<>();
        collectUndocumented(defaults, "", documented, undocumented);

        // then
        assertThat(undocumented)
                .as("settings of retrysafe-defaults.yaml missing from docs/configuration.md")
                .isEmpty();
        for (String setting : documented) {
            assertThat(node(defaults, setting).isMissingNode())
                    .as("docs/configuration.md documents '%s', which retrysafe-defaults.yaml does not have", setting)
                    .isFalse();
        }
    }

    @Test
    void everyVariableTheLoaderReadsIsDocumentedInTheRowOfItsSetting() throws Exception {
        // given
        Map<String, String> documented = new LinkedHashMap<>();
        Matcher row = ROW.matcher(Files.readString(RepositoryRoot.doc("configuration.md")));
        while (row.find()) {
            Matcher v = VARIABLE.matcher(row.group(2));
            while (v.find()) {
                documented.put(v.group(1), row.group(1));
            }
        }

        // then
        assertThat(documented)
                .as("variable -> setting, from docs/configuration.md")
                .containsExactlyInAnyOrderEntriesOf(ConfigLoader.environmentVariables());
    }

    private static void collectUndocumented(JsonNode node, String path, Set<String> documented, List<String> out) {
        if (!path.isEmpty() && documented.contains(path)) {
            return;
        }
        if (!node.isObject()) {
            out.add(path);
            return;
        }
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            collectUndocumented(e.getValue(), path.isEmpty() ? e.getKey() : path + "." + e.getKey(), documented, out);
        }
    }

    private static JsonNode node(JsonNode root, String setting) {
        JsonNode n = root;
        for (String part : setting.split("\\.")) {
            n = n.path(part);
        }
        return n;
    }

    private static JsonNode defaults() throws Exception {
        try (InputStream in = ConfigLoader.class.getResourceAsStream(ConfigLoader.DEFAULTS_RESOURCE)) {
            assertThat(in).as(ConfigLoader.DEFAULTS_RESOURCE).isNotNull();
            return new YAMLMapper().readTree(in);
        }
    }
}
