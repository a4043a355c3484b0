package dev.retrysafe.server;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The boundaries of ARCHITECTURE.md, as seen from the server. */
class ArchitectureTest {

    private static final JavaClasses SERVER = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.retrysafe.server", "db.migration");

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

    @Test
    void domainCodeDoesNotDependOnTheCommandLine() {
        noClasses().that().resideOutsideOfPackages("dev.retrysafe.server", "dev.retrysafe.server.cli")
                .should().dependOnClassesThat().resideInAPackage("dev.retrysafe.server.cli..")
                .check(SERVER);
    }

    @Test
    void configurationDependsOnNothingElseOfTheServer() {
        noClasses().that().resideInAPackage("dev.retrysafe.server.config..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.retrysafe.server.http..",
                        "dev.retrysafe.server.payments..", "dev.retrysafe.server.db..", "dev.retrysafe.server.bank..")
                .check(SERVER);
    }
}
