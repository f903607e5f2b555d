package dev.ax.common.config;

import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * One documented configuration key: its name (an environment variable, also accepted as a system
 * property or a line of the file named by {@code AX_CONFIG_FILE}), its default, its parser and its
 * validation. Immutable.
 *
 * @param defaultValue the default as text, null when the key has none (then it is optional and
 *     reads as null unless {@code required})
 * @param secret never logged; {@link AxConfig#describe()} prints it masked
 */
public record ConfigKey<T>(
    String name,
    String doc,
    String defaultValue,
    Function<String, T> parser,
    boolean required,
    boolean secret) {

  public static ConfigKey<String> string(String name, String defaultValue, String doc) {
    return plain(name, doc, defaultValue, s -> s);
  }

  /** A string that must match {@code pattern} in full. */
  public static ConfigKey<String> matching(
      String name, String defaultValue, Pattern pattern, String what, String doc) {
    return plain(name, doc, defaultValue, text -> matching(text, pattern, what));
  }

  public static ConfigKey<String> required(String name, String doc) {
    return new ConfigKey<>(name, doc, null, s -> s, true, false);
  }

  public static ConfigKey<String> secret(String name, String defaultValue, String doc) {
    return new ConfigKey<>(name, doc, defaultValue, s -> s, false, true);
  }

  public static ConfigKey<Integer> integer(
      String name, int defaultValue, int min, int max, String doc) {
    return plain(name, doc, Integer.toString(defaultValue), text -> integerIn(text, min, max));
  }

  public static ConfigKey<Boolean> bool(String name, boolean defaultValue, String doc) {
    return plain(name, doc, Boolean.toString(defaultValue), ConfigKey::bool);
  }

  /**
   * A duration written as {@code 250ms}, {@code 10s}, {@code 5m}, {@code 1h}, {@code 3650d} or
   * ISO-8601.
   */
  public static ConfigKey<Duration> duration(
      String name, String defaultValue, Duration min, Duration max, String doc) {
    return plain(name, doc, defaultValue, text -> durationIn(text, min, max));
  }

  public static ConfigKey<List<String>> list(String name, String defaultValue, String doc) {
    return plain(name, doc, defaultValue, ConfigKey::list);
  }

  /** {@code name=number,name=number}: e.g. thread counts per task group. */
  public static ConfigKey<Map<String, Integer>> sizesByName(
      String name, String defaultValue, int min, int max, String doc) {
    return plain(name, doc, defaultValue, text -> sizesByName(text, min, max));
  }

  /** A key that is neither required nor secret: most are. */
  private static <T> ConfigKey<T> plain(
      String name, String doc, String defaultValue, Function<String, T> parser) {
    return new ConfigKey<>(name, doc, defaultValue, parser, false, false);
  }

  // The parsers: each throws IllegalArgumentException with what the value must be.

  private static String matching(String text, Pattern pattern, String what) {
    if (!pattern.matcher(text).matches()) {
      throw new IllegalArgumentException("must be " + what);
    }
    return text;
  }

  private static int integerIn(String text, int min, int max) {
    int value;
    try {
      value = Integer.parseInt(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not an integer");
    }
    if (value < min || value > max) {
      throw new IllegalArgumentException("must be in " + min + ".." + max);
    }
    return value;
  }

  private static boolean bool(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (t.equals("true")) {
      return true;
    }
    if (t.equals("false")) {
      return false;
    }
    throw new IllegalArgumentException("must be true or false");
  }

  private static Duration durationIn(String text, Duration min, Duration max) {
    Duration value = DurationText.parse(text);
    if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw new IllegalArgumentException("must be between " + min + " and " + max);
    }
    return value;
  }

  private static List<String> list(String text) {
    return Arrays.stream(text.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
  }

  private static Map<String, Integer> sizesByName(String text, int min, int max) {
    Map<String, Integer> sizes = new LinkedHashMap<>();
    for (String part : text.split(",")) {
      String entry = part.trim();
      if (entry.isEmpty()) {
        continue;
      }
      int eq = entry.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("entries must be name=number: '" + entry + "'");
      }
      int size;
      try {
        size = Integer.parseInt(entry.substring(eq + 1).trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("not a number in '" + entry + "'");
      }
      if (size < min || size > max) {
        throw new IllegalArgumentException(
            "sizes must be in " + min + ".." + max + ": '" + entry + "'");
      }
      sizes.put(entry.substring(0, eq).trim(), size);
    }
    return sizes;
  }
}
