package dev.ax.common.purity;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.name;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * ax-core is the domain with no infrastructure: its main code uses no Kafka, no JDBC (the JDK's
 * {@code java.sql} and {@code javax.sql} included), no Flyway, Micrometer, HikariCP or MySQL
 * driver, and none of the runtime's packages. Maven keeps the libraries off this module's class
 * path, so most of this would not compile anyway; the rule also catches the JDK's JDBC, which is
 * always there, and says why when someone adds a dependency to the pom.
 *
 * <p>Only this module's classes are on its test class path (ax-runtime depends on ax-core, not the
 * other way), so importing {@code dev.ax.common} here sees exactly ax-core's main code.
 */
class CorePurityTest {

  /** Packages of the runtime module and of the infrastructure libraries it wraps. */
  static final List<String> INFRASTRUCTURE =
      List.of(
          "org.apache.kafka..",
          "java.sql..",
          "javax.sql..",
          "org.flywaydb..",
          "io.micrometer..",
          "com.zaxxer.hikari..",
          "com.mysql..",
          "dev.ax.common.kafka..",
          "dev.ax.common.store..",
          "dev.ax.common.stage..",
          "dev.ax.common.config..",
          "dev.ax.common.metrics..",
          "dev.ax.common.thread..",
          "dev.ax.common.logging..");

  private static final JavaClasses MAIN_CODE =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.ax.common");

  static ArchRule coreUsesNoInfrastructure() {
    return noClasses()
        .that()
        .resideInAPackage("dev.ax.common..")
        .should()
        .dependOnClassesThat(
            resideInAnyPackage(INFRASTRUCTURE.toArray(String[]::new))
                // The runtime's half of the split time package: it reads NOW(3) over JDBC.
                .or(name("dev.ax.common.time.DatabaseClock")))
        .because(
            "the domain ships to the console and client libraries, which must not drag Kafka,"
                + " JDBC or the stage runtime along");
  }

  @Test
  void theDomainUsesNoInfrastructure() {
    coreUsesNoInfrastructure().check(MAIN_CODE);
  }

  /** The rule sees every package of the domain's main code and no test code. */
  @Test
  void theRuleSeesTheMainCodeAndNoTests() {
    for (String type :
        List.of(
            "dev.ax.common.model.TaskSpec",
            "dev.ax.common.contract.CommandReader",
            "dev.ax.common.schedule.CronSchedule",
            "dev.ax.common.wheel.TimingWheel",
            "dev.ax.common.time.Clock",
            "dev.ax.common.trace.TraceIds")) {
      assertThat(MAIN_CODE.contain(type)).as(type).isTrue();
    }
    assertThat(MAIN_CODE.contain(CorePurityViolationFixture.class)).isFalse();
    assertThat(MAIN_CODE.contain(CorePurityTest.class)).isFalse();
  }

  /** A class of the domain's packages that opens a JDBC connection is refused, by name. */
  @Test
  void theRuleFailsOnADeliberateViolation() {
    JavaClasses violation = new ClassFileImporter().importClasses(CorePurityViolationFixture.class);

    assertThatThrownBy(() -> coreUsesNoInfrastructure().check(violation))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("CorePurityViolationFixture")
        .hasMessageContaining("java.sql.Connection")
        .hasMessageContaining("javax.sql.DataSource");
  }
}
