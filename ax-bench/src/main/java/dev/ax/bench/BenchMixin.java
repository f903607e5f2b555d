package dev.ax.bench;

import dev.ax.cli.command.OptionChecks;
import java.time.Duration;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * What every picocli mixin of {@code ax bench}'s options shares: the command it is mixed into, and
 * the checks of its values, each a usage error naming the option on that command's line (exit 2,
 * one message form with the rest of ax). Set by picocli and then read by the command, both on the
 * main thread.
 */
abstract class BenchMixin {

  /** The bench command this mixin's options belong to; picocli injects it. */
  @Spec(Spec.Target.MIXEE)
  private CommandSpec command;

  /** The command this mixin's options belong to. */
  final CommandSpec command() {
    return command;
  }

  /** A usage error on the bench's command line. */
  final ParameterException usage(String message) {
    return new ParameterException(command.commandLine(), message);
  }

  /**
   * @throws ParameterException when {@code value} is outside {@code min..max}
   */
  final void requireInRange(String option, long value, long min, long max) {
    OptionChecks.requireInRange(command, option, value, min, max);
  }

  /**
   * @throws ParameterException when {@code value} is none of {@code allowed}
   */
  final void requireOneOf(String option, String value, String... allowed) {
    OptionChecks.requireOneOf(command, option, value, allowed);
  }

  /**
   * @throws ParameterException when {@code value} is outside {@code min..max}
   */
  final void requireDuration(String option, Duration value, Duration min, Duration max) {
    if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw usage(
          option
              + " must be in "
              + BenchCommand.text(min)
              + ".."
              + BenchCommand.text(max)
              + ": "
              + BenchCommand.text(value));
    }
  }
}
