package dev.ax.cli.command;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

class OptionChecksTest {

  private final CommandSpec spec = new CommandLine(CommandSpec.create()).getCommandSpec();

  @Test
  void aValueAtEitherBoundPasses() {
    assertThatCode(() -> OptionChecks.requireInRange(spec, "--limit", 1, 1, 10_000))
        .doesNotThrowAnyException();
    assertThatCode(() -> OptionChecks.requireInRange(spec, "--limit", 10_000, 1, 10_000))
        .doesNotThrowAnyException();
  }

  @Test
  void aValueOutsideTheRangeIsAUsageErrorNamingTheOptionItsBoundsAndTheValue() {
    assertThatThrownBy(() -> OptionChecks.requireInRange(spec, "--limit", 0, 1, 10_000))
        .isInstanceOf(ParameterException.class)
        .hasMessage("--limit must be in 1..10000: 0");
    assertThatThrownBy(() -> OptionChecks.requireInRange(spec, "--rate", Long.MAX_VALUE, 1, 1000))
        .hasMessage("--rate must be in 1..1000: " + Long.MAX_VALUE);
    assertThatThrownBy(() -> OptionChecks.requireInRange(spec, "--rate", -1, 1, 1000))
        .hasMessage("--rate must be in 1..1000: -1");
  }

  @Test
  void onlyTheNamedValuesAreTaken() {
    assertThatCode(
            () -> OptionChecks.requireOneOf(spec, "--stages", "processes", "in-jvm", "processes"))
        .doesNotThrowAnyException();
    assertThatThrownBy(
            () -> OptionChecks.requireOneOf(spec, "--stages", "IN-JVM", "in-jvm", "processes"))
        .isInstanceOf(ParameterException.class)
        .hasMessage("--stages must be in-jvm or processes: IN-JVM");
    assertThatThrownBy(
            () -> OptionChecks.requireOneOf(spec, "--stages", null, "in-jvm", "processes"))
        .hasMessage("--stages must be in-jvm or processes: null");
  }
}
