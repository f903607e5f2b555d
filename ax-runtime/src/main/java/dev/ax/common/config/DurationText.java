package dev.ax.common.config;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one reading of a duration written by a person, in configuration and on the command line:
 * {@code 250ms}, {@code 10s}, {@code 5m}, {@code 1h}, {@code 7d}, or ISO-8601 ({@code PT1M30S}).
 * Stateless.
 */
public final class DurationText {

  private static final Pattern SHORT_FORM = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

  private DurationText() {}

  /**
   * @throws IllegalArgumentException when {@code text} is neither form
   */
  public static Duration parse(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    Matcher m = SHORT_FORM.matcher(t);
    if (m.matches()) {
      long amount = Long.parseLong(m.group(1));
      return switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(amount);
        case "s" -> Duration.ofSeconds(amount);
        case "m" -> Duration.ofMinutes(amount);
        case "h" -> Duration.ofHours(amount);
        default -> Duration.ofDays(amount);
      };
    }
    try {
      return Duration.parse(text.trim().toUpperCase(Locale.ROOT));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("not a duration (use e.g. 250ms, 10s, 5m, 1h, 7d)");
    }
  }
}
