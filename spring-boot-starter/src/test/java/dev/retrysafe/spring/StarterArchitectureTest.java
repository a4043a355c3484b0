package dev.retrysafe.spring;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import dev.retrysafe.servlet.internal.Admission;
import org.junit.jupiter.api.Test;

/**
 * The starter uses the libraries as any application would: through their exported packages. It
 * lives here rather than in the server's ArchitectureTest, which would otherwise need Spring on
 * the server's test class path.
 */
class StarterArchitectureTest {

    private static final JavaClasses STARTER = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.retrysafe.spring");

    private static final ArchRule NO_OTHER_MODULES_INTERNALS = noClasses()
            .should()
            .dependOnClassesThat(resideInAPackage("dev.retrysafe.(*)..internal..")
                    .and(not(resideInAPackage("dev.retrysafe.spring.internal.."))))
            .orShould()
            .dependOnClassesThat()
            .resideInAPackage("dev.retrysafe.common..")
            .because("the starter uses only the libraries' exported packages; internals may change at any time");

    @Test
    void theStarterUsesNoInternalPackageOfAnotherModule() {
        NO_OTHER_MODULES_INTERNALS.check(STARTER);
    }

    @Test
    void theRuleFailsOnAClassThatReachesIntoAnInternal() {
        JavaClasses offending = new ClassFileImporter().importClasses(ReachesIn.class);
        assertThatThrownBy(() -> NO_OTHER_MODULES_INTERNALS.check(offending))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("Admission");
    }

    /** What the rule must catch. */
    private static final class ReachesIn {
        @SuppressWarnings("unused")
        private Admission admission() {
            return Admission.FREE;
        }
    }
}
