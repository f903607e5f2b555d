package dev.ax.cli.layering;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import dev.ax.common.layering.CommonViolationFixture;
import dev.ax.ingest.LayeringViolationFixture;
import dev.ax.spi.SpiViolationFixture;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The layering of AX's modules, checked on the compiled main code of every module (this module
 * depends on all of them): a stage uses only the shared modules, never another stage; the shared
 * core uses no stage and not the launcher; the executor SPI uses nothing of AX; only the launcher's
 * local mode ({@code dev.ax.cli.local}, behind {@code ax demo} and {@code ax up}) uses the embedded
 * broker and database. Maven's module graph already keeps most of this from compiling; these rules
 * also hold inside the modules that see several others (the launcher) and say why a dependency is
 * refused.
 */
class LayeringTest {

  static final List<String> STAGES =
      List.of("ingest", "ticker", "dispatcher", "retry", "deadletter", "resolver");

  private static final JavaClasses MAIN_CODE =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          // The modules' test jars (shared test fixtures) are test code too.
          .withImportOption(location -> !location.contains("-tests.jar"))
          .importPackages("dev.ax");

  static Stream<String> stages() {
    return STAGES.stream();
  }

  /** A stage's code uses no other stage's. */
  static ArchRule stageUsesNoOtherStage(String stage) {
    return noClasses()
        .that()
        .resideInAPackage("dev.ax." + stage + "..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            STAGES.stream()
                .filter(other -> !other.equals(stage))
                .map(other -> "dev.ax." + other + "..")
                .toArray(String[]::new))
        .because(
            "stages talk through Kafka topics and the database, never through each other's code");
  }

  /** The rules see every module's main code and no test code (else they could pass vacuously). */
  @Test
  void theRulesSeeEveryModulesMainCodeAndNoTests() {
    for (String type :
        List.of(
            "dev.ax.spi.TaskExecutor",
            "dev.ax.common.model.TaskSpec",
            "dev.ax.common.store.InstanceStore",
            "dev.ax.embedded.EmbeddedDatabase",
            "dev.ax.cli.AxCli")) {
      assertThat(MAIN_CODE.contain(type)).as(type).isTrue();
    }
    for (String stage : STAGES) {
      assertThat(MAIN_CODE.stream().anyMatch(c -> c.getPackageName().startsWith("dev.ax." + stage)))
          .as(stage)
          .isTrue();
    }
    assertThat(MAIN_CODE.contain(LayeringViolationFixture.class)).isFalse();
    assertThat(MAIN_CODE.contain(LayeringTest.class)).isFalse();
  }

  @ParameterizedTest
  @MethodSource("stages")
  void aStageUsesNoOtherStage(String stage) {
    stageUsesNoOtherStage(stage).check(MAIN_CODE);
  }

  @Test
  void theSharedCoreUsesNoStageNorTheLauncher() {
    sharedCoreUsesNoStageNorTheLauncher().check(MAIN_CODE);
  }

  @Test
  void theExecutorSpiUsesNothingButTheJdk() {
    spiUsesOnlyTheJdk().check(MAIN_CODE);
  }

  @Test
  void onlyTheLaunchersLocalModeUsesTheEmbeddedInfrastructure() {
    onlyLocalModeUsesEmbedded().check(MAIN_CODE);
  }

  static ArchRule sharedCoreUsesNoStageNorTheLauncher() {
    return noClasses()
        .that()
        .resideInAPackage("dev.ax.common..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            Stream.concat(STAGES.stream(), Stream.of("cli", "bench"))
                .map(module -> "dev.ax." + module + "..")
                .toArray(String[]::new))
        .because("what every stage shares cannot know any one of them");
  }

  static ArchRule spiUsesOnlyTheJdk() {
    return classes()
        .that()
        .resideInAPackage("dev.ax.spi..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage("java..", "dev.ax.spi..")
        .because("a user's executor depends on ax-spi alone, and ax-spi on nothing");
  }

  static ArchRule onlyLocalModeUsesEmbedded() {
    return noClasses()
        .that()
        .resideInAPackage("dev.ax..")
        .and()
        .resideOutsideOfPackages("dev.ax.embedded..", "dev.ax.cli.local..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.ax.embedded..")
        .because(
            "a stage runs against a real broker and database; the embedded ones are for tests,"
                + " ax demo and ax up");
  }

  /** Each rule refuses a deliberate violation: test-only classes in the packages it guards. */
  @Test
  void theRulesFailOnADeliberateViolation() {
    JavaClasses ingest = new ClassFileImporter().importClasses(LayeringViolationFixture.class);
    assertThatThrownBy(() -> stageUsesNoOtherStage("ingest").check(ingest))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("LayeringViolationFixture")
        .hasMessageContaining("dev.ax.ticker.TickerMain");

    JavaClasses common = new ClassFileImporter().importClasses(CommonViolationFixture.class);
    assertThatThrownBy(() -> sharedCoreUsesNoStageNorTheLauncher().check(common))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("dev.ax.dispatcher.DispatcherMain");
    assertThatThrownBy(() -> onlyLocalModeUsesEmbedded().check(common))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("dev.ax.embedded.EmbeddedDatabase");

    JavaClasses spi = new ClassFileImporter().importClasses(SpiViolationFixture.class);
    assertThatThrownBy(() -> spiUsesOnlyTheJdk().check(spi))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("dev.ax.common.model.TaskSpec");
  }
}
