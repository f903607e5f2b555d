package dev.ax.cli.command;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads a duration option written as {@code 250ms}, {@code 5s}, {@code 2m}, {@code 1h} or ISO-8601
 * ({@code PT1M30S}), the same forms the AX configuration accepts. Negative durations are refused.
 * Stateless.
 */
public final class DurationConverter implements ITypeConverter<Duration> {

  private static final Pattern SHORT_FORM = Pattern.compile("(\\d+)\\s*(ms|s|m|h)");

  @Override
  public Duration convert(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (t.startsWith("-")) {
      throw new TypeConversionException("'" + text + "' is negative");
    }
    Matcher m = SHORT_FORM.matcher(t);
    if (m.matches()) {
      long amount = Long.parseLong(m.group(1));
      return switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(amount);
        case "s" -> Duration.ofSeconds(amount);
        case "m" -> Duration.ofMinutes(amount);
        default -> Duration.ofHours(amount);
      };
    }
    Duration duration;
    try {
      duration = Duration.parse(t.toUpperCase(Locale.ROOT));
    } catch (DateTimeParseException e) {
      throw new TypeConversionException(
          "'" + text + "' is not a duration (use e.g. 250ms, 5s, 2m, 1h or PT1M30S)");
    }
    if (duration.isNegative()) {
      throw new TypeConversionException("'" + text + "' is negative");
    }
    return duration;
  }
}
