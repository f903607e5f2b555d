package dev.ax.api.read;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Masks the values a task spec may carry secrets in: every parameter and every executor header
 * value becomes {@code ****}, their names stay. The CLI ({@code ax task show}, {@code ax dlq show})
 * and the API mask the same fields, unless asked to reveal. Stateless.
 */
public final class SecretMask {

  /** What a masked value reads as. */
  public static final String MASK = "****";

  private SecretMask() {}

  /**
   * The names of {@code spec}'s parameters and headers whose value is {@link #MASK}: a spec read
   * masked and sent back as it is would make the mask the new value.
   */
  public static List<String> stillMasked(JsonNode spec) {
    List<String> masked = new ArrayList<>();
    spec.path("params")
        .fields()
        .forEachRemaining(e -> addIfMasked(masked, "params." + e.getKey(), e.getValue()));
    spec.path("executor")
        .path("headers")
        .fields()
        .forEachRemaining(e -> addIfMasked(masked, "executor.headers." + e.getKey(), e.getValue()));
    return masked;
  }

  private static void addIfMasked(List<String> masked, String name, JsonNode value) {
    if (value.isTextual() && value.asText().equals(MASK)) {
      masked.add(name);
    }
  }

  /** A copy of {@code spec} with its parameter and header values masked; itself when revealed. */
  public static JsonNode masked(JsonNode spec, boolean reveal) {
    if (reveal) {
      return spec;
    }
    JsonNode copy = spec.deepCopy();
    for (JsonNode holder : List.of(copy.path("params"), copy.path("executor").path("headers"))) {
      if (holder instanceof ObjectNode object) {
        List<String> names = new ArrayList<>();
        object.fieldNames().forEachRemaining(names::add);
        names.forEach(name -> object.put(name, MASK));
      }
    }
    return copy;
  }
}
