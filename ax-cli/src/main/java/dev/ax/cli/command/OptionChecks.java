package dev.ax.cli.command;

import java.util.Arrays;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * Checks of option values that picocli's types cannot express, with one message form for every
 * command ({@code --limit must be in 1..10000: 0}), so a usage error reads the same everywhere and
 * exits 2 through picocli.
 *
 * <p>Stateless; thread-safe.
 */
public final class OptionChecks {

  private OptionChecks() {}

  /**
   * @throws ParameterException naming {@code option}, its bounds and {@code value} if {@code value}
   *     is outside {@code min..max}
   */
  public static void requireInRange(
      CommandSpec spec, String option, long value, long min, long max) {
    if (value < min || value > max) {
      throw new ParameterException(
          spec.commandLine(), option + " must be in " + min + ".." + max + ": " + value);
    }
  }

  /**
   * @throws ParameterException naming {@code option}, the values it takes and {@code value} if
   *     {@code value} is none of {@code allowed}
   */
  public static void requireOneOf(
      CommandSpec spec, String option, String value, String... allowed) {
    if (!Arrays.asList(allowed).contains(value)) {
      throw new ParameterException(
          spec.commandLine(), option + " must be " + String.join(" or ", allowed) + ": " + value);
    }
  }
}
