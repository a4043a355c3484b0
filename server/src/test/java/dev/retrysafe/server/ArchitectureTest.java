package dev.retrysafe.server;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.simpleName;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import dev.retrysafe.client.RetryingHttpClient;
import dev.retrysafe.liveevents.internal.StreamRuntime;
import dev.retrysafe.sdk.RetrysafeClient;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The boundaries of ARCHITECTURE.md, as seen from the server. */
class ArchitectureTest {

    private static final JavaClasses SERVER = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.retrysafe.server");
    private static final JavaClasses CLIENT_AND_SDK = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.retrysafe.client", "dev.retrysafe.sdk");

    @Test
    void serverUsesOnlyThePublicApiOfOtherModules() {
        noClasses().should().dependOnClassesThat().resideInAPackage("dev.retrysafe.(*)..internal..")
                .because("the root package of a module is its API; internal packages may change at any time")
                .check(SERVER);
    }

    @Test
    void serverDoesNotUseTheLibrariesSharedInternals() {
        // module-info exports it only to the libraries, but the server runs on the class path
        noClasses().should().dependOnClassesThat().resideInAPackage("dev.retrysafe.common..")
                .because("retrysafe-common is internal to the libraries, not an API")
                .check(SERVER);
    }

    /** The live-events module is wired through its API alone, as any other application would. */
    private static final ArchRule NO_LIVE_EVENTS_INTERNALS = noClasses()
            .should().dependOnClassesThat().resideInAPackage("dev.retrysafe.liveevents.internal..")
            .because("the server uses the live-events module as another application would: through its API");

    @Test
    void serverDoesNotDependOnTheLiveEventsModulesInternals() {
        NO_LIVE_EVENTS_INTERNALS.check(SERVER);
    }

    @Test
    void theLiveEventsRuleFailsOnAServerClassThatImportsAnInternal() {
        JavaClasses offending = new ClassFileImporter().importClasses(ReachesIntoLiveEvents.class);
        assertThatThrownBy(() -> NO_LIVE_EVENTS_INTERNALS.check(offending))
                .isInstanceOf(AssertionError.class).hasMessageContaining("StreamRuntime");
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
        noClasses().that().resideOutsideOfPackage("dev.retrysafe.server.cli..")
                .should().dependOnClassesThat().resideInAPackage("dev.retrysafe.server.cli..")
                .because("the command line starts the HTTP app and runs its tools; the app never calls back into it")
                .check(SERVER);
    }

    @Test
    void theCommandLineIsTheOnlyEntryPoint() {
        methods().that().haveName("main").and().areStatic().and().arePublic()
                .should().beDeclaredInClassesThat().resideInAPackage("dev.retrysafe.server.cli..")
                .because("a command of the jar lives in the command line's package, not beside the HTTP code")
                .check(SERVER);
    }

    @Test
    void configurationDependsOnNothingElseOfTheServer() {
        noClasses().that().resideInAPackage("dev.retrysafe.server.config..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.retrysafe.server.http..",
                        "dev.retrysafe.server.payments..", "dev.retrysafe.server.db..", "dev.retrysafe.server.bank..")
                .check(SERVER);
    }

    @Test
    void theRetryingClientKnowsNothingOfTheSdk() {
        noClasses().that().resideInAPackage("dev.retrysafe.client..")
                .should().dependOnClassesThat().resideInAPackage("dev.retrysafe.sdk..")
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
            } else if (type instanceof Class<?> c && c.getPackageName().startsWith("dev.retrysafe.")
                    && apiTypes.add(c) && c.isRecord()) {
                Arrays.stream(c.getRecordComponents()).map(RecordComponent::getGenericType).forEach(todo::add);
            }
        }
        assertThat(apiTypes).as("types of the Retrysafe API").hasSizeGreaterThan(10)
                .filteredOn(c -> !c.getPackageName().equals("dev.retrysafe.sdk"))
                .as("types of the Retrysafe API outside dev.retrysafe.sdk: only the retrying client it runs on")
                .containsOnly(RetryingHttpClient.class);
    }

    @Test
    void theSdkUsesTheClientsInternalsOnlyToReadHeadersAsTheClientDoes() {
        // module-info exports dev.retrysafe.client.internal to dev.retrysafe.sdk, for these alone
        noClasses().that().resideInAPackage("dev.retrysafe.sdk..")
                .should().dependOnClassesThat(resideInAPackage("dev.retrysafe.client.internal..")
                        .and(not(simpleName("RetryAfterHeader").or(simpleName("Execution")))))
                .because("the retrying client's internals may change at any time")
                .check(CLIENT_AND_SDK);
    }
}
