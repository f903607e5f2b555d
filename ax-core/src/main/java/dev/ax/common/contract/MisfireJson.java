package dev.ax.common.contract;

import static dev.ax.common.contract.JsonFields.optionalEnum;
import static dev.ax.common.contract.JsonFields.requireLong;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.common.model.MisfirePolicy;

/**
 * Reads and writes the {@code misfire} object of a task spec: what the ticker does with firings it
 * missed ({@code policy}), and for {@link MisfirePolicy#FIRE_ALL} how many it fires at most ({@code
 * maxFireAll}). Absent, or either field absent, means the defaults.
 *
 * <p>Stateless and thread-safe.
 */
final class MisfireJson {

  /** The {@code misfire} object as read. */
  record Misfire(MisfirePolicy policy, int maxFireAll) {
    static final Misfire DEFAULT =
        new Misfire(MisfirePolicy.DEFAULT, MisfirePolicy.DEFAULT_MAX_FIRE_ALL);
  }

  private MisfireJson() {}

  /**
   * @param node the {@code misfire} object, or null when the spec has none
   * @throws InvalidFieldException with the reason when a field is wrong
   */
  static Misfire read(JsonNode node) {
    if (node == null) {
      return Misfire.DEFAULT;
    }
    MisfirePolicy policy =
        optionalEnum(node, "policy", "misfire.policy", MisfirePolicy.class, MisfirePolicy.DEFAULT);
    int maxFireAll = MisfirePolicy.DEFAULT_MAX_FIRE_ALL;
    if (node.hasNonNull("maxFireAll")) {
      long max = requireLong(node, "maxFireAll", "misfire.maxFireAll");
      if (max < 1 || max > MisfirePolicy.MAX_FIRE_ALL_LIMIT) {
        throw new InvalidFieldException(
            "misfire.maxFireAll must be in 1.." + MisfirePolicy.MAX_FIRE_ALL_LIMIT + ": " + max);
      }
      maxFireAll = (int) max;
    }
    return new Misfire(policy, maxFireAll);
  }

  static ObjectNode write(MisfirePolicy policy, int maxFireAll) {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("policy", policy.name());
    node.put("maxFireAll", maxFireAll);
    return node;
  }
}
