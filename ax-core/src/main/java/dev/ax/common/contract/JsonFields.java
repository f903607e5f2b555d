package dev.ax.common.contract;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Reads one field of a JSON command or spec, with the type checks every field shares: each method
 * throws {@link InvalidFieldException} naming the field by its path ({@code trigger.delayMs}) and
 * saying what was wrong, with the value through {@link Echo}.
 *
 * <p>Stateless and thread-safe.
 */
final class JsonFields {

  private JsonFields() {}

  static JsonNode requireObject(JsonNode node, String field) {
    JsonNode value = present(node, field, field);
    if (!value.isObject()) {
      throw new InvalidFieldException("field '" + field + "' must be an object");
    }
    return value;
  }

  static String requireText(JsonNode node, String field) {
    return requireText(node, field, field);
  }

  /** A non-blank string. */
  static String requireText(JsonNode node, String field, String path) {
    JsonNode value = present(node, field, path);
    if (!value.isTextual() || value.asText().isBlank()) {
      throw new InvalidFieldException("field '" + path + "' must be a non-empty string");
    }
    return value.asText();
  }

  /** A string, {@code fallback} when absent or null. */
  static String optionalText(JsonNode node, String field, String fallback) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      return fallback;
    }
    if (!value.isTextual()) {
      throw new InvalidFieldException("field '" + field + "' must be a string");
    }
    return value.asText();
  }

  static long requireLong(JsonNode node, String field) {
    return requireLong(node, field, field);
  }

  /** An integral JSON number within a long; a string or a fraction is refused, not converted. */
  static long requireLong(JsonNode node, String field, String path) {
    JsonNode value = present(node, field, path);
    if (value.isTextual()) {
      throw new InvalidFieldException(
          "field '" + path + "' must be an integer, not a string: " + Echo.of(value.asText()));
    }
    if (value.isFloatingPointNumber() && !Double.isFinite(value.doubleValue())) {
      throw new InvalidFieldException(
          "field '" + path + "' must be an integer: got a number beyond any range (such as 1e400)");
    }
    if (!value.isIntegralNumber()) {
      throw new InvalidFieldException(
          "field '" + path + "' must be an integer: " + Echo.cut(value.toString()));
    }
    if (!value.canConvertToLong()) {
      throw new InvalidFieldException(
          "field '"
              + path
              + "' must be an integer in the range of a 64-bit long: "
              + Echo.cut(value.toString()));
    }
    return value.asLong();
  }

  /** A JSON boolean, {@code fallback} when absent or null. */
  static boolean optionalBoolean(JsonNode node, String field, String path, boolean fallback) {
    if (!node.hasNonNull(field)) {
      return fallback;
    }
    if (!node.get(field).isBoolean()) {
      throw new InvalidFieldException("field '" + path + "' must be a boolean");
    }
    return node.get(field).booleanValue();
  }

  /** A constant of {@code type} by name, in any case; {@code fallback} when absent or null. */
  static <E extends Enum<E>> E optionalEnum(
      JsonNode node, String field, String path, Class<E> type, E fallback) {
    if (!node.hasNonNull(field)) {
      return fallback;
    }
    String text = requireText(node, field, path).toUpperCase(Locale.ROOT);
    try {
      return Enum.valueOf(type, text);
    } catch (IllegalArgumentException e) {
      throw new InvalidFieldException(
          path
              + " must be one of "
              + Arrays.toString(type.getEnumConstants())
              + ": "
              + Echo.of(text));
    }
  }

  /**
   * The constant of {@code type} named {@code text} (already upper case), for the {@code type}
   * field of a command, trigger or executor.
   *
   * @param what the field's name in the message: {@code unknown <what> 'X' (expected one of ...)}
   */
  static <E extends Enum<E>> E constantNamed(Class<E> type, String text, String what) {
    try {
      return Enum.valueOf(type, text);
    } catch (IllegalArgumentException e) {
      throw new InvalidFieldException(
          "unknown "
              + what
              + " "
              + Echo.of(text)
              + " (expected one of "
              + Arrays.stream(type.getEnumConstants())
                  .map(Enum::name)
                  .collect(Collectors.joining(", "))
              + ")");
    }
  }

  /**
   * An object of scalars, each read as its text, in the order given; empty when absent or null.
   *
   * @param maxEntries the intake bound on its size, applied through {@code check}
   */
  static Map<String, String> optionalStringMap(
      JsonNode node, String field, String path, IntakeCheck check, int maxEntries) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      return Map.of();
    }
    if (!value.isObject()) {
      throw new InvalidFieldException("field '" + path + "' must be an object of strings");
    }
    check.count(path, value.size(), maxEntries);
    Map<String, String> map = new LinkedHashMap<>();
    Iterator<Map.Entry<String, JsonNode>> fields = value.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> entry = fields.next();
      JsonNode v = entry.getValue();
      if (!v.isValueNode() || v.isNull()) {
        throw new InvalidFieldException(
            path + "." + Echo.cut(entry.getKey()) + " must be a string, number or boolean");
      }
      map.put(entry.getKey(), v.asText());
    }
    return map;
  }

  private static JsonNode present(JsonNode node, String field, String path) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      throw new InvalidFieldException("missing field '" + path + "'");
    }
    return value;
  }
}
