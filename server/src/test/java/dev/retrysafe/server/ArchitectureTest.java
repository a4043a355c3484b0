package dev.retrysafe.server;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaCall.Predicates.target;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.simpleName;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.simpleNameStartingWith;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.name;
import static com.tngtech.archunit.core.domain.properties.HasOwner.Predicates.With.owner;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import dev.retrysafe.client.RetryingHttpClient;
import dev.retrysafe.liveevents.internal.StreamRuntime;
import dev.retrysafe.sdk.RetrysafeClient;
import dev.retrysafe.servlet.RequestDecisions;
import jakarta.servlet.ServletRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.Condition;
import org.junit.jupiter.api.Test;

/** The boundaries of ARCHITECTURE.md, as seen from the server. */
class ArchitectureTest {

    private static final JavaClasses SERVER = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.retrysafe.server");
    private static final JavaClasses SERVLET = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.retrysafe.servlet");
    private static final JavaClasses CLIENT_AND_SDK = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.retrysafe.client", "dev.retrysafe.sdk");
    private static final JavaClasses RATELIMIT_REDIS = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.retrysafe.ratelimit.redis");
    /** The two modules whose leased work runs on dev.retrysafe.leasedwork. */
    private static final JavaClasses DELIVERY_AND_JOBS = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.retrysafe.delivery", "dev.retrysafe.jobs");

    @Test
    void serverUsesOnlyThePublicApiOfOtherModules() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.retrysafe.(*)..internal..")
                .because("the root package of a module is its API; internal packages may change at any time")
                .check(SERVER);
    }

    @Test
    void serverDoesNotUseTheLibrariesSharedInternals() {
        // module-info exports it only to the libraries, but the server runs on the class path;
        // its one seam for monotonic time is for every module, the server included (issue 32)
        noClasses()
                .should()
                .dependOnClassesThat(resideInAPackage("dev.retrysafe.common..").and(not(simpleName("MonotonicClock"))))
                .because("retrysafe-common is internal to the libraries, not an API")
                .check(SERVER);
    }

    /** The live-events module is wired through its API alone, as any other application would. */
    private static final ArchRule NO_LIVE_EVENTS_INTERNALS = noClasses()
            .should()
            .dependOnClassesThat()
            .resideInAPackage("dev.retrysafe.liveevents.internal..")
            .because("the server uses the live-events module as another application would: through its API");

    @Test
    void serverDoesNotDependOnTheLiveEventsModulesInternals() {
        NO_LIVE_EVENTS_INTERNALS.check(SERVER);
    }

    @Test
    void theLiveEventsRuleFailsOnAServerClassThatImportsAnInternal() {
        JavaClasses offending = new ClassFileImporter().importClasses(ReachesIntoLiveEvents.class);
        assertThatThrownBy(() -> NO_LIVE_EVENTS_INTERNALS.check(offending))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("StreamRuntime");
    }

    /** What the rule must catch: a server class that uses the live streams' machinery directly. */
    private static final class ReachesIntoLiveEvents {
        @SuppressWarnings("unused")
        private StreamRuntime runtime() {
            throw new UnsupportedOperationException();
        }
    }

    @Test
    void nothingOfTheHttpAppDependsOnTheCommandLine() {
        noClasses()
                .that()
                .resideOutsideOfPackage("dev.retrysafe.server.cli..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.retrysafe.server.cli..")
                .because("the command line starts the HTTP app and runs its tools; the app never calls back into it")
                .check(SERVER);
    }

    @Test
    void theCommandLineIsTheOnlyEntryPoint() {
        methods()
                .that()
                .haveName("main")
                .and()
                .areStatic()
                .and()
                .arePublic()
                .should()
                .beDeclaredInClassesThat()
                .resideInAPackage("dev.retrysafe.server.cli..")
                .because("a command of the jar lives in the command line's package, not beside the HTTP code")
                .check(SERVER);
    }

    @Test
    void configurationDependsOnNothingElseOfTheServer() {
        noClasses()
                .that()
                .resideInAPackage("dev.retrysafe.server.config..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "dev.retrysafe.server.http..",
                        "dev.retrysafe.server.payments..",
                        "dev.retrysafe.server.db..",
                        "dev.retrysafe.server.bank..")
                .check(SERVER);
    }

    @Test
    void redisDecisionsSeeTheTransportOnlyThroughItsInterface() {
        // wherever they live, the connections, the lane and the shared calls are the transport's
        DescribedPredicate<JavaClass> transportMechanism = resideInAPackage("dev.retrysafe.ratelimit.redis..")
                .and(simpleNameStartingWith("RespConnection")
                        .or(simpleNameStartingWith("DirectLane"))
                        .or(simpleNameStartingWith("SpinWait"))
                        .or(simpleNameStartingWith("ScriptBatches"))
                        .or(simpleNameStartingWith("Deadlines"))
                        .or(simpleNameStartingWith("RedisConnector"))
                        .or(simpleNameStartingWith("Lettuce")))
                .or(resideInAPackage("dev.retrysafe.ratelimit.redis.internal.transport..")
                        .and(not(simpleName("ScriptTransport")
                                .or(simpleName("ScriptTransports"))
                                .or(simpleName("ScriptLink"))
                                .or(simpleName("TransportSettings")))))
                .as("the Redis transport's connections, lane or shared calls");
        noClasses()
                .that()
                .resideInAnyPackage("dev.retrysafe.ratelimit.redis", "dev.retrysafe.ratelimit.redis.internal")
                .should()
                .dependOnClassesThat(transportMechanism)
                .because("the store and its decisions read as breaker and fail modes; how a call reaches Redis"
                        + " (Lettuce, the direct RESP lane, shared calls) is chosen behind ScriptTransport"
                        + " (and, for the concurrency script, ScriptLink)")
                .check(RATELIMIT_REDIS);
    }

    @Test
    void theRetryingClientKnowsNothingOfTheSdk() {
        noClasses()
                .that()
                .resideInAPackage("dev.retrysafe.client..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.retrysafe.sdk..")
                .because("a user who only retries calls to their own API pulls in retrysafe-client alone")
                .check(CLIENT_AND_SDK);
    }

    @Test
    void everyTypeOfTheRetrysafeApiLivesInTheSdk() {
        // what RetrysafeClient's methods take and answer, type arguments and the records' members included
        Set<Class<?>> apiTypes = new LinkedHashSet<>();
        Deque<Type> todo = new ArrayDeque<>();
        for (Method method : RetrysafeClient.class.getMethods()) {
            todo.add(method.getGenericReturnType());
            todo.addAll(Arrays.asList(method.getGenericParameterTypes()));
        }
        while (!todo.isEmpty()) {
            Type type = todo.pop();
            if (type instanceof ParameterizedType parameterized) {
                todo.add(parameterized.getRawType());
                todo.addAll(Arrays.asList(parameterized.getActualTypeArguments()));
            } else if (type instanceof Class<?> c
                    && c.getPackageName().startsWith("dev.retrysafe.")
                    && apiTypes.add(c)
                    && c.isRecord()) {
                Arrays.stream(c.getRecordComponents())
                        .map(RecordComponent::getGenericType)
                        .forEach(todo::add);
            }
        }
        assertThat(apiTypes)
                .as("types of the Retrysafe API")
                .hasSizeGreaterThan(10)
                .filteredOn(c -> !c.getPackageName().equals("dev.retrysafe.sdk"))
                .as("types of the Retrysafe API outside dev.retrysafe.sdk: only the retrying client it runs on")
                .containsOnly(RetryingHttpClient.class);
    }

    @Test
    void theSdkUsesTheClientsInternalsOnlyToReadHeadersAsTheClientDoes() {
        // module-info exports dev.retrysafe.client.internal to dev.retrysafe.sdk, for these alone
        noClasses()
                .that()
                .resideInAPackage("dev.retrysafe.sdk..")
                .should()
                .dependOnClassesThat(resideInAPackage("dev.retrysafe.client.internal..")
                        .and(not(simpleName("RetryAfterHeader").or(simpleName("Execution")))))
                .because("the retrying client's internals may change at any time")
                .check(CLIENT_AND_SDK);
    }

    @Test
    void theServletStepsPassValuesNotRequestAttributes() {
        // the steps of a request (RequestDecisions) hand each other what they decided as arguments;
        // only Handoff names the attributes that carry it between filters installed one by one, and
        // the public types that document an attribute for the application read their own
        noClasses()
                .that()
                .resideInAPackage("dev.retrysafe.servlet..")
                .and(not(simpleName("Handoff")
                        .or(simpleName("RequestTransaction"))
                        .or(simpleName("WebhookReceiverFilter"))))
                .should()
                .callMethodWhere(target(name("getAttribute")).and(target(owner(assignableTo(ServletRequest.class)))))
                .because("filters never call back into each other through request attributes (CONVENTIONS.md)")
                .check(SERVLET);
    }

    @Test
    void theServletModuleExportsItsApiAlone() throws Exception {
        URL jar = RequestDecisions.class.getProtectionDomain().getCodeSource().getLocation();
        ModuleDescriptor descriptor;
        try (URLClassLoader loader = new URLClassLoader(new URL[] {jar}, null)) {
            URL moduleInfo = loader.findResource("module-info.class"); // in that jar alone
            assertThat(moduleInfo)
                    .as("module-info.class beside RequestDecisions in " + jar)
                    .isNotNull();
            try (InputStream in = moduleInfo.openStream()) {
                descriptor = ModuleDescriptor.read(in);
            }
        }
        assertThat(descriptor.exports())
                .as("what dev.retrysafe.servlet exports")
                .extracting(ModuleDescriptor.Exports::source)
                .containsExactly("dev.retrysafe.servlet");
        assertThat(descriptor.opens()).as("what it opens to reflection").isEmpty();
    }

    @Test
    void deliveryAndJobsRunNoClaimLoopOrWorkersOfTheirOwn() {
        // the claim loop waits on a Condition and bounds its workers with a Semaphore; workers are
        // threads of a ThreadFactory or a thread-per-task executor: all of that is the engine's
        noClasses()
                .should()
                .dependOnClassesThat()
                .areAssignableTo(Semaphore.class)
                .orShould()
                .dependOnClassesThat()
                .areAssignableTo(Condition.class)
                .orShould()
                .callMethod(ThreadFactory.class, "newThread", Runnable.class)
                .orShould()
                .callMethod(Executors.class, "newThreadPerTaskExecutor", ThreadFactory.class)
                .because("one leased-work engine (dev.retrysafe.leasedwork) claims, wakes, bounds and closes the "
                        + "workers of delivery and jobs")
                .check(DELIVERY_AND_JOBS);
    }

    @Test
    void deliveryAndJobsHoldNoLeaseSql() {
        classes()
                .should(holdNoStringConstantWith(
                        List.of("SKIP LOCKED", "lease_owner = ?", "lease_expires_at", "lease_token = NULL")))
                .because("taking, extending, giving back and ending a lease is SQL the engine builds "
                        + "(dev.retrysafe.leasedwork.internal.LeaseSql), the same for every table")
                .check(DELIVERY_AND_JOBS);
    }

    @Test
    void deliveryAndJobsHaveNoMirroredJdbcHelpers() {
        noClasses()
                .should()
                .haveSimpleName("Checks")
                .orShould()
                .haveSimpleName("Jdbc")
                .orShould()
                .haveSimpleName("Rows")
                .because("the shared JDBC helpers live once, in dev.retrysafe.leasedwork.internal")
                .check(DELIVERY_AND_JOBS);
    }

    /** Fails a class whose constant pool (string literals, text blocks) holds one of {@code fragments}. */
    private static ArchCondition<JavaClass> holdNoStringConstantWith(List<String> fragments) {
        return new ArchCondition<>("hold no string constant with any of " + fragments) {
            @Override
            public void check(JavaClass item, ConditionEvents events) {
                String constants = classFileText(item);
                for (String fragment : fragments) {
                    if (constants.contains(fragment)) {
                        events.add(SimpleConditionEvent.violated(item, item.getName() + " holds '" + fragment + "'"));
                    }
                }
            }
        };
    }

    /** The class file as Latin-1 text: the constant pool's ASCII strings appear in it as written. */
    private static String classFileText(JavaClass item) {
        String resource = "/" + item.getName().replace('.', '/') + ".class";
        try (InputStream in = ArchitectureTest.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("no class file " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void monotonicTimeIsReadBehindItsSeamAlone() {
        // common's MonotonicClock for the libraries and the server; the zero-dependency client keeps
        // its own (it may not depend on common); testkit cannot depend on common (common's tests use it)
        JavaClasses everything = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.retrysafe");
        noClasses()
                .that()
                .resideOutsideOfPackage("dev.retrysafe.testkit..")
                .and()
                .doNotHaveFullyQualifiedName("dev.retrysafe.common.MonotonicClock")
                .and()
                .doNotHaveFullyQualifiedName("dev.retrysafe.client.internal.MonotonicClock")
                .should()
                .callMethod(System.class, "nanoTime")
                .because("one seam for monotonic time (issue 32): tests inject a clock instead of waiting")
                .check(everything);
    }
}
