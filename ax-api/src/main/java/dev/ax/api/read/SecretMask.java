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
