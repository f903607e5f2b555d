package dev.ax.common.contract;

import static dev.ax.common.contract.JsonFields.constantNamed;
import static dev.ax.common.contract.JsonFields.optionalText;
import static dev.ax.common.contract.JsonFields.requireLong;
import static dev.ax.common.contract.JsonFields.requireText;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.common.model.Namespace;
import dev.ax.common.model.Trigger;
import dev.ax.common.model.TriggerType;
import dev.ax.common.schedule.CronSchedule;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Reads and writes the {@code trigger} object of a task spec: its {@code type} ({@code ONCE},
 * {@code CRON}, {@code FIXED_RATE}, {@code FIXED_DELAY}, {@code DEPENDENCY}) and the fields that
 * type takes. An absolute time is read as ISO-8601 ({@code at}, {@code startAt}, {@code endAt}) or
 * epoch milliseconds ({@code atMs}, {@code startAtMs}, {@code endAtMs}), and written as
 * milliseconds.
 *
 * <p>Stateless and thread-safe.
 */
final class TriggerJson {

  private TriggerJson() {}

  /**
   * @throws InvalidFieldException with the reason when a field is missing or wrong
   */
  static Trigger read(JsonNode node, IntakeCheck check) {
    String typeText = requireText(node, "type", "trigger.type").toUpperCase(Locale.ROOT);
    TriggerType type = constantNamed(TriggerType.class, typeText, "trigger type");
    try {
      return switch (type) {
        case ONCE -> readOnce(node, check);
        case CRON -> readCron(node, check);
        case FIXED_RATE ->
            new Trigger.FixedRate(
                readInterval(node, check),
                readOptionalInstant(node, "startAt", check),
                readOptionalInstant(node, "endAt", check));
        case FIXED_DELAY ->
            new Trigger.FixedDelay(
                readInterval(node, check),
                readOptionalInstant(node, "startAt", check),
                readOptionalInstant(node, "endAt", check));
        case DEPENDENCY -> readDependency(node, check);
      };
    } catch (IllegalArgumentException e) {
      throw new InvalidFieldException(
          "trigger " + Echo.cut(typeText) + ": " + Echo.cut(e.getMessage()));
    }
  }

  static ObjectNode write(Trigger trigger) {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("type", trigger.type().name());
    if (trigger instanceof Trigger.Once once) {
      if (once.at() != null) {
        node.put("atMs", once.at().toEpochMilli());
      } else {
        node.put("delayMs", once.delay().toMillis());
      }
    } else if (trigger instanceof Trigger.Cron cron) {
      node.put("expression", cron.expression());
      node.put("zone", cron.zone().getId());
      writeBounds(node, cron.startAt(), cron.endAt());
    } else if (trigger instanceof Trigger.FixedRate rate) {
      node.put("intervalMs", rate.interval().toMillis());
      writeBounds(node, rate.startAt(), rate.endAt());
    } else if (trigger instanceof Trigger.FixedDelay delay) {
      node.put("intervalMs", delay.interval().toMillis());
      writeBounds(node, delay.startAt(), delay.endAt());
    } else if (trigger instanceof Trigger.Dependency dependency) {
      ArrayNode upstream = node.putArray("upstream");
      dependency.upstreamTaskIds().forEach(upstream::add);
    }
    return node;
  }

  private static Trigger readOnce(JsonNode node, IntakeCheck check) {
    boolean hasDelay = node.has("delayMs");
    boolean hasAt = node.has("at") || node.has("atMs");
    if (hasDelay == hasAt) {
      throw new InvalidFieldException("trigger ONCE needs exactly one of delayMs, at, atMs");
    }
    if (hasDelay) {
      long delayMs = requireLong(node, "delayMs", "trigger.delayMs");
      if (delayMs < 0) {
        throw new InvalidFieldException("trigger.delayMs must not be negative: " + delayMs);
      }
      check.delay(delayMs);
      return Trigger.Once.after(Duration.ofMillis(delayMs));
    }
    return Trigger.Once.at(readInstant(node, "at", "atMs", check));
  }

  private static Trigger readCron(JsonNode node, IntakeCheck check) {
    String expression = requireText(node, "expression", "trigger.expression");
    check.cronLength(expression);
    Optional<String> problem = CronSchedule.problem(expression);
    if (problem.isPresent()) {
      throw new InvalidFieldException(
          "trigger.expression is not a valid Quartz cron expression: "
              + Echo.cut(problem.get())
              + " ("
              + Echo.of(expression)
              + ")");
    }
    ZoneId zone = readZone(node);
    check.cron(CronSchedule.parse(expression, zone));
    return new Trigger.Cron(
        expression,
        zone,
        readOptionalInstant(node, "startAt", check),
        readOptionalInstant(node, "endAt", check));
  }

  private static Trigger readDependency(JsonNode node, IntakeCheck check) {
    JsonNode upstream = node.get("upstream");
    if (upstream == null || !upstream.isArray() || upstream.isEmpty()) {
      throw new InvalidFieldException("trigger.upstream must be a non-empty array of task ids");
    }
    check.count("trigger.upstream", upstream.size(), check.limits().maxUpstream());
    List<String> ids = new ArrayList<>();
    for (JsonNode id : upstream) {
      if (check.enforced() && id.isTextual() && id.asText().indexOf(Namespace.SEPARATOR) >= 0) {
        throw new InvalidFieldException(CrossNamespace.reason("trigger.upstream", id.asText()));
      }
      if (!id.isTextual() || !TaskSpecJson.taskIdPattern(check).matcher(id.asText()).matches()) {
        throw new InvalidFieldException(
            "trigger.upstream holds an invalid task id: " + Echo.cut(id.toString()));
      }
      if (ids.contains(id.asText())) {
        throw new InvalidFieldException("trigger.upstream lists " + id + " twice");
      }
      ids.add(id.asText());
    }
    return new Trigger.Dependency(ids);
  }

  private static Duration readInterval(JsonNode node, IntakeCheck check) {
    long intervalMs = requireLong(node, "intervalMs", "trigger.intervalMs");
    if (intervalMs <= 0) {
      throw new InvalidFieldException("trigger.intervalMs must be positive: " + intervalMs);
    }
    check.interval(intervalMs);
    return Duration.ofMillis(intervalMs);
  }

  /** {@code field} (ISO-8601) or {@code fieldMs} (epoch milliseconds); null when neither. */
  private static Instant readOptionalInstant(JsonNode node, String field, IntakeCheck check) {
    return node.has(field) || node.has(field + "Ms")
        ? readInstant(node, field, field + "Ms", check)
        : null;
  }

  private static Instant readInstant(
      JsonNode node, String isoField, String msField, IntakeCheck check) {
    if (node.has(msField)) {
      Instant at = Instant.ofEpochMilli(requireLong(node, msField, "trigger." + msField));
      check.dueAt("trigger." + msField, at);
      return at;
    }
    String text = requireText(node, isoField, "trigger." + isoField);
    Instant at;
    try {
      at = Instant.parse(text);
    } catch (DateTimeException e) {
      throw new InvalidFieldException(
          "trigger."
              + isoField
              + " is not an ISO-8601 instant (e.g. 2026-01-31T12:00:00Z): "
              + Echo.of(text));
    }
    check.dueAt("trigger." + isoField, at);
    return at;
  }

  private static ZoneId readZone(JsonNode node) {
    String zone = optionalText(node, "zone", "UTC");
    try {
      return ZoneId.of(zone);
    } catch (DateTimeException e) {
      throw new InvalidFieldException("trigger.zone is not an IANA time zone: " + Echo.of(zone));
    }
  }

  private static void writeBounds(ObjectNode node, Instant startAt, Instant endAt) {
    if (startAt != null) {
      node.put("startAtMs", startAt.toEpochMilli());
    }
    if (endAt != null) {
      node.put("endAtMs", endAt.toEpochMilli());
    }
  }
}
