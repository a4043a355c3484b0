package dev.retrysafe.acceptance;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.retrysafe.acceptance.libraries.JettyApp;
import dev.retrysafe.acceptance.libraries.OrdersApplication;
import dev.retrysafe.acceptance.libraries.TomcatApp;
import dev.retrysafe.server.docs.BuildPoms;
import dev.retrysafe.testkit.CountingDataSource;
import dev.retrysafe.testkit.RepositoryRoot;
import dev.retrysafe.testkit.ThrowawayDatabase;
import dev.retrysafe.webhooks.SignedHeaders;
import dev.retrysafe.webhooks.VerifiedWebhook;
import dev.retrysafe.webhooks.WebhookSecret;
import dev.retrysafe.webhooks.WebhookSigner;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.catalina.startup.Tomcat;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.w3c.dom.Element;

/**
 * {@code docs/libraries.md} holds as written. Its Maven and Gradle blocks name every library
 * module of the build (as {@link BuildPoms} reads the POMs) at the build's version, and the other
 * dependencies it shows at the versions the build tests with. Each {@code ```java} block is either
 * a whole example file of package {@code dev.retrysafe.acceptance.libraries} but its package line,
 * marked {@code <!-- source: PATH -->}, or skipped by name ({@code <!-- uncompiled: NAME -->},
 * only {@link #UNCOMPILED}); every example file is quoted. And the examples run: on Jetty and on
 * Tomcat, on H2 and on PostgreSQL, real requests go through the filters in the order shown.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LibrariesGuideTest {

    private static final String GUIDE = "libraries.md";
    private static final Path EXAMPLES = Path.of("acceptance/src/test/java/dev/retrysafe/acceptance/libraries");
    /** Blocks the test may skip, by name: the starter's API is not merged yet (docs/spring-boot.md). */
    private static final Set<String> UNCOMPILED = Set.of();
    /** The Spring Boot controller the page quotes: compiled and run by the starter's own tests. */
    private static final Path SPRING_EXAMPLE =
            Path.of("spring-boot-starter/src/test/java/dev/retrysafe/spring/docs/OrderController.java");
    /** The build property that holds the version of each other dependency the page shows. */
    private static final Map<String, String> VERSION_PROPERTIES = Map.of(
            "jetty-server", "jetty.version",
            "jetty-ee10-servlet", "jetty.version",
            "tomcat-embed-core", "tomcat.version",
            "HikariCP", "hikari.version",
            "postgresql", "postgresql.version");

    private static final Pattern BLOCK = Pattern.compile(
            "(?:<!-- (source|uncompiled): (\\S+)[^\\n]*-->\\n)?^```(\\w*)\\n(.*?)^```$",
            Pattern.DOTALL | Pattern.MULTILINE);
    private static final Pattern GRADLE_RETRYSAFE =
            Pattern.compile("[\"']dev\\.retrysafe:([a-z-]+)(?::([^\"']+))?[\"']");
    private static final Pattern TABLE_ARTIFACT = Pattern.compile("(?m)^\\| `(retrysafe-[a-z-]+)` \\|");
    private static final String API_KEY = "key_libraries_guide";
    private static final String ACCOUNT = "acct_1";
    private static final String ORDER = "{\"item\":\"book\",\"quantity\":1}";

    private Path root;
    private BuildPoms build;
    private List<Block> blocks;
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    @TempDir
    Path temp;

    /**
     * One fenced block of the page.
     *
     * @param language the fence's info string
     * @param marker {@code source} or {@code uncompiled} from the comment above it, or {@code null}
     * @param name the path or name that comment gives
     * @param text the block's text
     */
    private record Block(
            String language,
            @Nullable String marker,
            @Nullable String name,
            String text) {}

    @BeforeAll
    void readThePageAndTheBuild() throws Exception {
        root = RepositoryRoot.find();
        build = BuildPoms.read(root);
        blocks = new ArrayList<>();
        Matcher block = BLOCK.matcher(Files.readString(RepositoryRoot.doc(GUIDE), UTF_8));
        while (block.find()) {
            blocks.add(new Block(block.group(3), block.group(1), block.group(2), block.group(4)));
        }
    }

    @Test
    void theMavenBlocksNameEveryLibraryAtTheBuildsVersionAndImportTheBom() {
        List<BuildPoms.Dependency> retrysafe = mavenDependencies().stream()
                .filter(d -> d.groupId().equals(build.groupId()))
                .toList();

        assertThat(retrysafe).allSatisfy(dependency -> {
            assertThat(dependency.artifactId())
                    .as("a module of the build")
                    .isIn(union(build.libraryArtifacts(), Set.of("retrysafe-bom")));
            assertThat(dependency.version())
                    .as("version of %s (none: the BOM's)", dependency.artifactId())
                    .isIn(null, build.version());
        });
        assertThat(retrysafe)
                .filteredOn(d -> d.artifactId().equals("retrysafe-bom"))
                .extracting(BuildPoms.Dependency::version)
                .as("the BOM's import")
                .containsExactly(build.version());
        assertThat(artifacts(retrysafe))
                .as("libraries named in the Maven blocks")
                .containsExactlyInAnyOrderElementsOf(build.publicLibraryArtifacts());
    }

    @Test
    void theGradleLinesNameTheSameArtifactsAtTheSameVersion() {
        Set<String> maven = artifacts(mavenDependencies().stream()
                .filter(d -> d.groupId().equals(build.groupId()))
                .toList());
        for (String language : List.of("kotlin", "groovy")) {
            Set<String> gradle = new LinkedHashSet<>();
            for (Block block : blocksIn(language)) {
                Matcher coordinate = GRADLE_RETRYSAFE.matcher(block.text());
                while (coordinate.find()) {
                    gradle.add(coordinate.group(1));
                    assertThat(coordinate.group(2))
                            .as("version of %s in a %s block", coordinate.group(1), language)
                            .isIn(null, build.version());
                }
            }
            assertThat(gradle).as("the %s blocks' platform", language).contains("retrysafe-bom");
            gradle.remove("retrysafe-bom");
            assertThat(gradle).as("artifacts in the %s blocks", language).containsExactlyInAnyOrderElementsOf(maven);
        }
    }

    @Test
    void theTableSaysWhatEveryLibraryNeeds() throws Exception {
        Matcher row = TABLE_ARTIFACT.matcher(Files.readString(RepositoryRoot.doc(GUIDE), UTF_8));
        Set<String> rows = new LinkedHashSet<>();
        while (row.find()) {
            rows.add(row.group(1));
        }

        assertThat(rows).as("rows of the module table").containsExactlyInAnyOrderElementsOf(build.libraryArtifacts());
    }

    @Test
    void theOtherDependenciesAreTheVersionsTheBuildTestsWith() throws Exception {
        Map<String, String> properties = properties();
        List<BuildPoms.Dependency> others = mavenDependencies().stream()
                .filter(d -> !d.groupId().equals(build.groupId()))
                .toList();

        assertThat(others).as("the examples' other dependencies").isNotEmpty();
        for (BuildPoms.Dependency dependency : others) {
            String property = VERSION_PROPERTIES.get(dependency.artifactId());
            assertThat(property)
                    .as("the build property of %s's version (add it to VERSION_PROPERTIES)", dependency.artifactId())
                    .isNotNull();
            assertThat(dependency.version())
                    .as("%s:%s", dependency.groupId(), dependency.artifactId())
                    .isEqualTo(properties.get(property));
        }
    }

    @Test
    void everyJavaBlockIsAWholeExampleFileOrSkippedByName() throws Exception {
        Set<String> quoted = new LinkedHashSet<>();
        Set<String> skipped = new LinkedHashSet<>();
        for (Block block : blocksIn("java")) {
            assertThat(block.marker())
                    .as("a java block without <!-- source: ... --> or <!-- uncompiled: ... -->:\n%s", block.text())
                    .isNotNull();
            if ("uncompiled".equals(block.marker())) {
                skipped.add(block.name());
                continue;
            }
            Path source = root.resolve(String.valueOf(block.name()));
            assertThat(source.getParent().equals(root.resolve(EXAMPLES)) || source.equals(root.resolve(SPRING_EXAMPLE)))
                    .as("quoted file %s is an example the build compiles", block.name())
                    .isTrue();
            assertThat(block.text())
                    .as("%s, quoted whole but its package line", block.name())
                    .isEqualTo(withoutPackageLine(Files.readString(source, UTF_8)));
            quoted.add(source.getFileName().toString());
        }
        List<String> examples;
        try (Stream<Path> files = Files.list(root.resolve(EXAMPLES))) {
            examples = Stream.concat(
                            files.map(p -> p.getFileName().toString()),
                            Stream.of(SPRING_EXAMPLE.getFileName().toString()))
                    .toList();
        }

        assertThat(quoted).as("example files quoted on the page").containsExactlyInAnyOrderElementsOf(examples);
        assertThat(skipped).as("java blocks skipped by name").containsExactlyInAnyOrderElementsOf(UNCOMPILED);
    }

    @ParameterizedTest(name = "{0} on {1}")
    @CsvSource({"jetty, h2", "jetty, postgres", "tomcat, h2", "tomcat, postgres"})
    void theExampleRunsTheFiltersInOrder(String container, String databaseKind) throws Exception {
        try (ThrowawayDatabase database =
                databaseKind.equals("h2") ? ThrowawayDatabase.h2("libraries_guide") : ThrowawayDatabase.postgres()) {
            CountingDataSource dataSource = database.dataSource();
            OrdersApplication.createTables(dataSource);
            OrdersApplication.createTables(dataSource); // only what is missing: nothing the second time
            List<VerifiedWebhook> events = new CopyOnWriteArrayList<>();
            WebhookSecret secret = WebhookSecret.generate();
            OrdersApplication app = OrdersApplication.create(dataSource, Map.of(API_KEY, ACCOUNT), secret, events::add);

            try (Running running = start(container, app)) {
                URI base = running.base();
                keyedPostIsReplayed(base, dataSource);
                webhookIsHandledOnce(base, secret, events);
                spentBudgetAnswers429WithHeaders(base);
            }
            await("every connection of the example closed")
                    .atMost(Duration.ofSeconds(10))
                    .until(dataSource::openConnections, open -> open == 0);
        }
    }

    private void keyedPostIsReplayed(URI base, CountingDataSource dataSource) throws Exception {
        HttpResponse<String> anonymous = send(HttpRequest.newBuilder(base.resolve("/v1/orders")), null);
        assertThat(anonymous.statusCode()).as("no API key").isEqualTo(401);
        assertThat(anonymous.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");

        HttpResponse<String> first = post(base, "order-1", ORDER);
        HttpResponse<String> replay = post(base, "order-1", ORDER);
        HttpResponse<String> keyless = post(base, null, ORDER);

        assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
        assertThat(first.headers().firstValue("Location"))
                .hasValueSatisfying(l -> assertThat(l).startsWith("/v1/orders/ord_"));
        assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(first.headers().firstValue("RateLimit"))
                .as("budget headers on every answer")
                .isPresent();
        assertThat(replay.statusCode()).isEqualTo(201);
        assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(replay.body()).isEqualTo(first.body());
        assertThat(replay.headers().firstValue("Location"))
                .isEqualTo(first.headers().firstValue("Location"));
        assertThat(keyless.statusCode())
                .as("the key is required on POST /v1/orders")
                .isEqualTo(400);
        assertThat(keyless.headers().firstValue("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(orders(dataSource)).as("orders in the database").isEqualTo(1);

        HttpResponse<String> list = send(HttpRequest.newBuilder(base.resolve("/v1/orders")), API_KEY);
        assertThat(list.statusCode()).isEqualTo(200);
        assertThat(list.body())
                .contains(first.headers().firstValue("Location").orElseThrow().substring("/v1/orders/".length()));
    }

    private void webhookIsHandledOnce(URI base, WebhookSecret secret, List<VerifiedWebhook> events) throws Exception {
        byte[] body = "{\"type\":\"order.shipped\",\"data\":{\"id\":\"ord_1\"}}".getBytes(UTF_8);
        long now = Instant.now().getEpochSecond();
        SignedHeaders signed = WebhookSigner.of(secret).headers("msg_libraries_1", now, body);
        SignedHeaders forged = WebhookSigner.of(WebhookSecret.generate()).headers("msg_libraries_2", now, body);

        int delivered = webhook(base, signed, body).statusCode();
        int again = webhook(base, signed, body).statusCode();
        int forgedStatus = webhook(base, forged, body).statusCode();

        assertThat(delivered).as("first delivery").isEqualTo(204);
        assertThat(again)
                .as("the same webhook-id again: answered by the filter")
                .isEqualTo(200);
        assertThat(forgedStatus).as("signed with another secret").isEqualTo(400);
        assertThat(events).extracting(VerifiedWebhook::id).containsExactly("msg_libraries_1");
        assertThat(events.get(0).body()).isEqualTo(body);
    }

    private void spentBudgetAnswers429WithHeaders(URI base) throws Exception {
        HttpResponse<String> refused = null;
        for (int i = 0; i < 100 && refused == null; i++) {
            HttpResponse<String> answer = send(HttpRequest.newBuilder(base.resolve("/v1/orders")), API_KEY);
            if (answer.statusCode() == 429) {
                refused = answer;
            } else {
                assertThat(answer.statusCode()).isEqualTo(200);
            }
        }

        assertThat(refused).as("a 429 within 100 requests (60 a minute)").isNotNull();
        assertThat(refused.headers().firstValue("Retry-After")).isPresent();
        assertThat(refused.headers().firstValue("RateLimit-Policy"))
                .hasValueSatisfying(policy -> assertThat(policy).contains("\"account\""));
        assertThat(refused.headers().firstValue("RateLimit")).isPresent();
        assertThat(refused.headers().firstValue("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
    }

    private HttpResponse<String> post(URI base, @Nullable String key, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve("/v1/orders"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        return send(request, API_KEY);
    }

    private HttpResponse<String> webhook(URI base, SignedHeaders signed, byte[] body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve("/webhooks/orders"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        signed.toMap().forEach(request::header);
        return send(request, null);
    }

    private HttpResponse<String> send(HttpRequest.Builder request, @Nullable String apiKey) throws Exception {
        if (apiKey != null) {
            request.header("Authorization", "Bearer " + apiKey);
        }
        return http.send(request.timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString(UTF_8));
    }

    private static long orders(CountingDataSource dataSource) throws Exception {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement();
                ResultSet count = statement.executeQuery("SELECT COUNT(*) FROM orders")) {
            count.next();
            return count.getLong(1);
        }
    }

    /** How a container stops. */
    @FunctionalInterface
    private interface Stop {
        void stop() throws Exception;
    }

    /** A started example, stopped on close. */
    private record Running(URI base, Stop stop) implements AutoCloseable {
        @Override
        public void close() {
            try {
                stop.stop();
            } catch (Exception e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                throw new IllegalStateException("the example did not stop", e);
            }
        }
    }

    private Running start(String container, OrdersApplication app) throws Exception {
        InetSocketAddress loopback = new InetSocketAddress("127.0.0.1", 0);
        if (container.equals("jetty")) {
            Server server = JettyApp.start(app, loopback);
            int port = ((ServerConnector) server.getConnectors()[0]).getLocalPort();
            return new Running(URI.create("http://127.0.0.1:" + port), server::stop);
        }
        Tomcat tomcat = TomcatApp.start(app, loopback, Files.createDirectories(temp.resolve("tomcat")));
        return new Running(
                URI.create("http://127.0.0.1:" + tomcat.getConnector().getLocalPort()), () -> {
                    tomcat.stop();
                    tomcat.destroy();
                });
    }

    private List<BuildPoms.Dependency> mavenDependencies() {
        List<BuildPoms.Dependency> all = new ArrayList<>();
        for (Block block : blocksIn("xml")) {
            all.addAll(BuildPoms.dependencies(block.text()));
        }
        assertThat(all).as("dependencies in the xml blocks").isNotEmpty();
        return all;
    }

    private List<Block> blocksIn(String language) {
        List<Block> found =
                blocks.stream().filter(b -> b.language().equals(language)).toList();
        assertThat(found).as("```%s blocks in docs/%s", language, GUIDE).isNotEmpty();
        return found;
    }

    private Map<String, String> properties() throws Exception {
        Element project = BuildPoms.parse(Files.readString(root.resolve("pom.xml")));
        Element properties = BuildPoms.child(project, "properties");
        assertThat(properties).as("the root pom's <properties>").isNotNull();
        Map<String, String> values = new HashMap<>();
        for (String property : VERSION_PROPERTIES.values()) {
            values.put(property, BuildPoms.text(properties, property));
        }
        return values;
    }

    private static Set<String> artifacts(List<BuildPoms.Dependency> dependencies) {
        Set<String> artifacts = new LinkedHashSet<>();
        dependencies.stream()
                .map(BuildPoms.Dependency::artifactId)
                .filter(a -> !a.equals("retrysafe-bom"))
                .forEach(artifacts::add);
        return artifacts;
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> all = new LinkedHashSet<>(a);
        all.addAll(b);
        return all;
    }

    private static String withoutPackageLine(String source) {
        return source.replaceFirst("\\Apackage [\\w.]+;\\n\\n", "");
    }
}
