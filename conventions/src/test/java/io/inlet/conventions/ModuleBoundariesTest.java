package io.inlet.conventions;

import io.inlet.annotation.Internal;
import io.inlet.annotation.PublicEvolving;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiPredicate;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Module boundaries, checked on the compiled classes of every module: internal code stays in its
 * module, sources and sinks never depend on each other (only on core and on the shared Iceberg catalog
 * settings), nobody compiles against another project's
 * relocated classes, and the example jobs use only the public API.
 */
class ModuleBoundariesTest {

    @Test
    void readsTheClassesOfEveryModule() {
        List<String> every = List.of(
                "core",
                "iceberg-catalog",
                "source-mysql-cdc",
                "source-debezium-kafka",
                "sink-iceberg",
                "source-iceberg",
                "sink-hudi",
                "hadoop-shim",
                "examples/common",
                "examples/mysql-iceberg",
                "examples/kafka-hudi");
        Set<String> absent = PublicApiTest.absentModules();
        assertThat(Modules.CLASSES.stream().map(Modules::name).distinct())
                .contains(every.stream().filter(m -> !absent.contains(m)).toArray(String[]::new))
                .noneMatch(absent::contains);
    }

    @Test
    void internalTypesAreUsedOnlyInsideTheirOwnModule() {
        ArchRule rule = classes()
                .that()
                .resideInAPackage("..internal..")
                .or()
                .areAnnotatedWith(Internal.class)
                .should(beUsedOnlyFrom("their own module", (user, used) -> user.equals(used)));
        rule.check(Modules.CLASSES);
    }

    @Test
    void sourcesAndSinksNeverDependOnEachOtherAndCoreOnNoneOfThem() {
        ArchRule rule = classes().should(dependOnlyOn("modules it may use", (from, to) -> {
            if (from.equals(to)) {
                return true;
            }
            if (from.equals("core")) {
                return false; // everything builds on core; core on nothing of ours
            }
            if (Modules.isSource(from) || Modules.isSink(from)) {
                // iceberg-catalog: the catalog settings Iceberg's sink and source share, neither of them
                return to.equals("core") || to.equals("iceberg-catalog");
            }
            return true; // hadoop-shim, the examples: any module's public API (checked below)
        }));
        rule.check(Modules.CLASSES);
    }

    @Test
    void noModuleCompilesAgainstRelocatedOrShadedClasses() {
        ArchRule rule = noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("..shaded..", "..relocated..", "org.apache.hudi.org..", "org.apache.hudi.com..")
                .because("another project's relocated classes change with its packaging; use the original API");
        rule.check(Modules.CLASSES);
    }

    @Test
    void theExampleJobsUseOnlyPublicApi() {
        ArchRule rule = classes()
                .that(inAnExample())
                .should(dependOnlyOn("the public API of other modules", (from, to) -> true)
                        .and(useOnlyPublicApiOfOtherModules()));
        rule.check(Modules.CLASSES);
    }

    private static DescribedPredicate<JavaClass> inAnExample() {
        return DescribedPredicate.describe(
                "are in an example module",
                c -> Modules.of(c).map(Modules::isExample).orElse(false));
    }

    /** Every use of the class comes from a class of a module the predicate accepts (user module, used module). */
    private static ArchCondition<JavaClass> beUsedOnlyFrom(String what, BiPredicate<String, String> allowed) {
        return new ArchCondition<>("be used only from " + what) {
            @Override
            public void check(JavaClass used, ConditionEvents events) {
                String usedModule = Modules.name(used);
                for (Dependency d : used.getDirectDependenciesToSelf()) {
                    Optional<String> user = Modules.of(d.getOriginClass());
                    if (user.isPresent() && !allowed.test(user.get(), usedModule)) {
                        events.add(SimpleConditionEvent.violated(
                                d,
                                user.get() + " uses " + usedModule + "'s internal " + used.getName() + ": "
                                        + d.getDescription()));
                    }
                }
            }
        };
    }

    /** The class depends on Inlet classes of modules the predicate accepts (from module, to module) only. */
    private static ArchCondition<JavaClass> dependOnlyOn(String what, BiPredicate<String, String> allowed) {
        return new ArchCondition<>("depend only on " + what) {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                String from = Modules.name(c);
                for (Dependency d : c.getDirectDependenciesFromSelf()) {
                    Optional<String> to = Modules.of(d.getTargetClass());
                    if (to.isPresent() && !allowed.test(from, to.get())) {
                        events.add(SimpleConditionEvent.violated(
                                d, from + " depends on " + to.get() + ": " + d.getDescription()));
                    }
                }
            }
        };
    }

    private static ArchCondition<JavaClass> useOnlyPublicApiOfOtherModules() {
        return new ArchCondition<>("use only @PublicEvolving types of other modules") {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                String from = Modules.name(c);
                for (Dependency d : c.getDirectDependenciesFromSelf()) {
                    JavaClass target = d.getTargetClass();
                    Optional<String> to = Modules.of(target);
                    if (to.isPresent() && !to.get().equals(from) && !isPublicApi(target)) {
                        events.add(SimpleConditionEvent.violated(
                                d,
                                from + " uses " + target.getName() + ", which is not @PublicEvolving: "
                                        + d.getDescription()));
                    }
                }
            }
        };
    }

    /** A type annotated @PublicEvolving, nested in one, or one of the annotations themselves. */
    static boolean isPublicApi(JavaClass c) {
        for (JavaClass t = c; t != null; t = t.getEnclosingClass().orElse(null)) {
            if (t.isAnnotatedWith(PublicEvolving.class) || t.getPackageName().equals("io.inlet.annotation")) {
                return true;
            }
        }
        return false;
    }
}
