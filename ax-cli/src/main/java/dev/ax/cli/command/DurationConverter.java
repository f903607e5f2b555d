package dev.ax.cli.command;

import dev.ax.common.config.DurationText;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads a duration option written as {@code 250ms}, {@code 5s}, {@code 2m}, {@code 1h}, {@code 7d}
 * or ISO-8601 ({@code PT1M30S}): the same forms, read by the same code ({@link DurationText}), as
 * the AX configuration. Negative durations are refused. Registered for every {@link Duration}
 * option of {@code ax} ({@code AxCli.commandLine()}). Stateless.
 */
public final class DurationConverter implements ITypeConverter<Duration> {

  @Override
  public Duration convert(String text) {
    if (text.trim().startsWith("-")) {
      throw new TypeConversionException("'" + text + "' is negative");
    }
    Duration duration;
    try {
      duration = DurationText.parse(text);
    } catch (IllegalArgumentException e) {
      throw new TypeConversionException(
          "'" + text + "' is not a duration (use e.g. 250ms, 5s, 2m, 1h or PT1M30S)");
    }
    if (duration.isNegative()) {
      throw new TypeConversionException("'" + text + "' is negative");
    }
    return duration;
  }
}
