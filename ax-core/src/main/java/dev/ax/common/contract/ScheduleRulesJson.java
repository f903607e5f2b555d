package dev.ax.common.contract;

import static dev.ax.common.contract.JsonFields.optionalBoolean;
import static dev.ax.common.contract.JsonFields.optionalEnum;
import static dev.ax.common.contract.JsonFields.requireLong;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.common.model.ConcurrencyPolicy;
import dev.ax.common.model.Namespace;
import dev.ax.common.model.OverlapPolicy;
import dev.ax.common.model.ScheduleRules;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Reads and writes a task spec's schedule rules, top-level fields of the spec: {@code overlap},
 * {@code catchUpWindowMs}, {@code jitterMs}, {@code jitterSymmetric}, {@code calendars}; and the
 * older {@code concurrent} / {@code concurrencyPolicy}, which a spec may give instead of {@code
 * overlap} (not both) and which keep their meaning ({@link OverlapPolicy#ofLegacy}).
 *
 * <p>Stateless and thread-safe.
 */
final class ScheduleRulesJson {

  /** A calendar's name as its namespace's users write it. */
  static final Pattern CALENDAR = Pattern.compile("[A-Za-z0-9._-]{1,64}");

  private static final Pattern STORED_CALENDAR =
      Pattern.compile("(?:[a-z][a-z0-9-]{0,30}~)?[A-Za-z0-9._-]{1,64}");

  private ScheduleRulesJson() {}

  /**
   * @throws InvalidFieldException with the reason when a field is wrong
   */
  static ScheduleRules read(JsonNode node, IntakeCheck check) {
    return new ScheduleRules(
        readOverlap(node),
        readCatchUpWindow(node, check),
        Duration.ofMillis(readMillis(node, "jitterMs", ScheduleRules.MAX_JITTER.toMillis(), 0)),
        optionalBoolean(node, "jitterSymmetric", "jitterSymmetric", false),
        readCalendars(node, check));
  }

  static void write(ScheduleRules rules, ObjectNode node) {
    node.put("overlap", rules.overlap().name());
    if (rules.catchUpWindow() != null) {
      node.put("catchUpWindowMs", rules.catchUpWindow().toMillis());
    }
    if (!rules.jitter().isZero()) {
      node.put("jitterMs", rules.jitter().toMillis());
      if (rules.jitterSymmetric()) {
        node.put("jitterSymmetric", true);
      }
    }
    if (!rules.calendars().isEmpty()) {
      ArrayNode calendars = node.putArray("calendars");
      rules.calendars().forEach(calendars::add);
    }
  }

  private static OverlapPolicy readOverlap(JsonNode node) {
    boolean legacy = node.has("concurrent") || node.has("concurrencyPolicy");
    if (node.has("overlap")) {
      if (legacy) {
        throw new InvalidFieldException(
            "give overlap or the older concurrent/concurrencyPolicy, not both");
      }
      return optionalEnum(node, "overlap", "overlap", OverlapPolicy.class, OverlapPolicy.DEFAULT);
    }
    if (!legacy) {
      return OverlapPolicy.DEFAULT;
    }
    return OverlapPolicy.ofLegacy(
        optionalBoolean(node, "concurrent", "concurrent", true),
        optionalEnum(
            node,
            "concurrencyPolicy",
            "concurrencyPolicy",
            ConcurrencyPolicy.class,
            ConcurrencyPolicy.DEFAULT));
  }

  private static Duration readCatchUpWindow(JsonNode node, IntakeCheck check) {
    if (!node.hasNonNull("catchUpWindowMs")) {
      return null;
    }
    if (check.enforced() && node.hasNonNull("misfire") && node.get("misfire").has("policy")) {
      throw new InvalidFieldException(
          "give catchUpWindowMs or misfire.policy, not both (misfire.maxFireAll may stay: it"
              + " bounds the catch-up firings)");
    }
    return Duration.ofMillis(
        readMillis(node, "catchUpWindowMs", ScheduleRules.MAX_CATCH_UP_WINDOW.toMillis(), 0));
  }

  private static long readMillis(JsonNode node, String field, long max, long fallback) {
    if (!node.hasNonNull(field)) {
      return fallback;
    }
    long ms = requireLong(node, field, field);
    if (ms < 0 || ms > max) {
      throw new InvalidFieldException(field + " must be in 0.." + max + ": " + ms);
    }
    return ms;
  }

  private static List<String> readCalendars(JsonNode node, IntakeCheck check) {
    if (!node.hasNonNull("calendars")) {
      return List.of();
    }
    JsonNode array = node.get("calendars");
    if (!array.isArray()) {
      throw new InvalidFieldException("calendars must be an array of calendar names");
    }
    if (array.size() > ScheduleRules.MAX_CALENDARS) {
      throw new InvalidFieldException(
          "calendars names at most " + ScheduleRules.MAX_CALENDARS + ": " + array.size());
    }
    Pattern pattern = check.enforced() ? CALENDAR : STORED_CALENDAR;
    List<String> names = new ArrayList<>();
    for (JsonNode name : array) {
      if (check.enforced() && name.isTextual() && name.asText().indexOf(Namespace.SEPARATOR) >= 0) {
        throw new InvalidFieldException(CrossNamespace.reason("calendars", name.asText()));
      }
      if (!name.isTextual() || !pattern.matcher(name.asText()).matches()) {
        throw new InvalidFieldException(
            "calendars holds an invalid name ("
                + CALENDAR.pattern()
                + "): "
                + Echo.cut(name.toString()));
      }
      if (names.contains(name.asText())) {
        throw new InvalidFieldException("calendars lists " + name + " twice");
      }
      names.add(name.asText());
    }
    return names;
  }
}
