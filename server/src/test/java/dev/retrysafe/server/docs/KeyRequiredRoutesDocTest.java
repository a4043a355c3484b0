package dev.retrysafe.server.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.retrysafe.server.Api;
import dev.retrysafe.server.TestServer;
import dev.retrysafe.testkit.RepositoryRoot;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The README's idempotency summary and {@code docs/idempotency.md} name exactly the routes that
 * require an {@code Idempotency-Key}, as the running server decides it: every route of its route
 * table with an unsafe method is sent a request without a key, and those answering
 * {@code idempotency-key-missing} are the truth the documents are compared with.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KeyRequiredRoutesDocTest {

    private static final Set<String> UNSAFE = Set.of("POST", "PUT", "PATCH", "DELETE");
    private static final Pattern ROUTE = Pattern.compile("`((?:POST|PUT|PATCH|DELETE) /[^`]+)`");

    private TestServer server;
    private Set<String> required;

    @BeforeAll
    void start() {
        server = TestServer.h2().start();
        Api api = Api.of(server);
        required = new TreeSet<>();
        List<String> probed = new ArrayList<>();
        for (String route : server.routes()) {
            int space = route.indexOf(' ');
            String method = route.substring(0, space);
            String template = route.substring(space + 1);
            if (!UNSAFE.contains(method)) {
                continue;
            }
            probed.add(route);
            // any id will do: the key is checked before the route looks anything up
            String path = template.replaceAll("\\{[^}]+}", "x_1");
            Api.Answer a = api.send(api.request(path)
                    .method(method, HttpRequest.BodyPublishers.ofString("{}", StandardCharsets.UTF_8))
                    .header("Content-Type", "application/json")
                    .build());
            if (a.json() != null && a.body().path("type").asText().equals("/problems/idempotency-key-missing")) {
                required.add(route);
            }
        }
        assertThat(probed).as("unsafe routes of the route table").hasSizeGreaterThanOrEqualTo(10);
        assertThat(required).as("routes the server refuses without a key").isNotEmpty();
    }

    @AfterAll
    void stop() {
        server.close();
    }

    @Test
    void theReadmeSummaryListsEveryRouteThatRequiresAKey() throws Exception {
        String readme = Files.readString(RepositoryRoot.find().resolve("README.md"));
        Matcher bullet = Pattern.compile("(?s)- `Idempotency-Key` is \\*\\*required\\*\\* on (.*?), and honoured")
                .matcher(readme);

        assertThat(bullet.find())
                .as("the README's idempotency summary names the required routes")
                .isTrue();
        assertThat(routes(bullet.group(1))).isEqualTo(required);
    }

    @Test
    void theIdempotencyPolicyTableListsEveryRouteThatRequiresAKey() throws Exception {
        String policy = Files.readString(RepositoryRoot.doc("idempotency.md"));
        Set<String> documented = new TreeSet<>();
        for (String line : policy.lines().toList()) {
            if (line.startsWith("| `") && line.contains("**required**")) {
                documented.addAll(routes(line));
            }
        }

        assertThat(documented).isEqualTo(required);
    }

    @Test
    void theComparisonSeesARouteMissingFromTheText() {
        // a summary that forgot reports, as the README's once did
        String old = "`POST /v1/payments` and `POST /v1/refunds`";

        assertThat(routes(old)).isNotEqualTo(required);
    }

    private static Set<String> routes(String text) {
        Set<String> routes = new TreeSet<>();
        Matcher m = ROUTE.matcher(text.replaceAll("\\s+", " "));
        while (m.find()) {
            routes.add(m.group(1));
        }
        return routes;
    }
}
