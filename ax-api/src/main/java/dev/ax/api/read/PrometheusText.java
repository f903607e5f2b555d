package dev.ax.api.read;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The samples of a Prometheus text exposition (version 0.0.4, what every AX process serves at
 * {@code /metrics}): each line {@code name{label="value",...} number}; comments, blank lines and
 * lines that do not parse are passed over. Only what the console's summary reads. Stateless.
 */
public final class PrometheusText {

  /** One sample: a metric name, its labels, its value. */
  public record Sample(String name, Map<String, String> labels, double value) {}

  private PrometheusText() {}

  /** The samples of {@code text} whose names start with {@code prefix}. */
  public static List<Sample> parse(String text, String prefix) {
    List<Sample> samples = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (line.isEmpty() || line.charAt(0) == '#' || !line.startsWith(prefix)) {
        continue;
      }
      Sample sample = sample(line.strip());
      if (sample != null) {
        samples.add(sample);
      }
    }
    return samples;
  }

  private static Sample sample(String line) {
    int brace = line.indexOf('{');
    int space;
    String name;
    Map<String, String> labels = new LinkedHashMap<>();
    if (brace >= 0) {
      int close = line.lastIndexOf('}');
      if (close < brace) {
        return null;
      }
      name = line.substring(0, brace);
      if (!labels(line.substring(brace + 1, close), labels)) {
        return null;
      }
      space = close + 1;
    } else {
      space = line.indexOf(' ');
      if (space < 0) {
        return null;
      }
      name = line.substring(0, space);
    }
    String[] rest = line.substring(space).strip().split("\\s+");
    try {
      return new Sample(name, Map.copyOf(labels), value(rest[0]));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static double value(String text) {
    return switch (text) {
      case "+Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      case "NaN" -> Double.NaN;
      default -> Double.parseDouble(text);
    };
  }

  /** Reads {@code a="x",b="y"} into {@code labels}; false when it does not parse. */
  private static boolean labels(String text, Map<String, String> labels) {
    int i = 0;
    while (i < text.length()) {
      int eq = text.indexOf('=', i);
      if (eq < 0 || eq + 1 >= text.length() || text.charAt(eq + 1) != '"') {
        return false;
      }
      StringBuilder value = new StringBuilder();
      int j = eq + 2;
      while (j < text.length() && text.charAt(j) != '"') {
        if (text.charAt(j) == '\\' && j + 1 < text.length()) {
          char escaped = text.charAt(++j);
          value.append(escaped == 'n' ? '\n' : escaped);
        } else {
          value.append(text.charAt(j));
        }
        j++;
      }
      if (j >= text.length()) {
        return false;
      }
      labels.put(text.substring(i, eq).strip(), value.toString());
      i = j + 1;
      if (i < text.length() && text.charAt(i) == ',') {
        i++;
      }
    }
    return true;
  }
}
