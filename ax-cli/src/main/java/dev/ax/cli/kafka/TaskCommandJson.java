package dev.ax.cli.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.common.contract.AxJson;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;

/**
 * Builds the JSON of one CREATE command (docs/contract/task-command.schema.json), field by field,
 * as a producer in any language would write it. The server validates; this class only writes what
 * it is told. Not thread-safe; build one command per instance.
 */
public final class TaskCommandJson {

  private final ObjectNode root = AxJson.MAPPER.createObjectNode();

  private TaskCommandJson(String taskId) {
    root.put("v", AxJson.VERSION);
    root.put("type", "CREATE");
    root.put("taskId", taskId);
  }

  public static TaskCommandJson create(String taskId) {
    return new TaskCommandJson(taskId);
  }

  /** A ONCE trigger after {@code delay} (a negative delay is written as given). */
  public TaskCommandJson onceAfterMs(long delayMs) {
    root.putObject("trigger").put("type", "ONCE").put("delayMs", delayMs);
    return this;
  }

  public TaskCommandJson onceAfter(Duration delay) {
    return onceAfterMs(delay.toMillis());
  }

  public TaskCommandJson onceAt(Instant at) {
    root.putObject("trigger").put("type", "ONCE").put("at", at.toString());
    return this;
  }

  public TaskCommandJson onceAtMs(long atMs) {
    root.putObject("trigger").put("type", "ONCE").put("atMs", atMs);
    return this;
  }

  /** A CRON trigger: a Quartz expression with seconds, in the IANA time zone {@code zone}. */
  public TaskCommandJson cron(String expression, String zone) {
    root.putObject("trigger").put("type", "CRON").put("expression", expression).put("zone", zone);
    return this;
  }

  /** A FIXED_RATE trigger: every {@code interval} from {@code startAt}. */
  public TaskCommandJson fixedRate(Duration interval, Instant startAt) {
    return everyInterval("FIXED_RATE", interval, startAt);
  }

  /** A FIXED_DELAY trigger: first at {@code startAt}, then {@code delay} after each run ended. */
  public TaskCommandJson fixedDelay(Duration delay, Instant startAt) {
    return everyInterval("FIXED_DELAY", delay, startAt);
  }

  private TaskCommandJson everyInterval(String type, Duration interval, Instant startAt) {
    root.putObject("trigger")
        .put("type", type)
        .put("intervalMs", interval.toMillis())
        .put("startAt", startAt.toString());
    return this;
  }

  /** A DEPENDENCY trigger: runs when every one of {@code upstream} succeeded in one flow run. */
  public TaskCommandJson dependsOn(String... upstream) {
    ArrayNode ids = root.putObject("trigger").put("type", "DEPENDENCY").putArray("upstream");
    for (String id : upstream) {
      ids.add(id);
    }
    return this;
  }

  /** The overlap policy, e.g. {@code BUFFER_ONE}. */
  public TaskCommandJson overlap(String policy) {
    root.put("overlap", policy);
    return this;
  }

  /** The misfire policy, e.g. {@code SKIP}. */
  public TaskCommandJson misfire(String policy) {
    root.putObject("misfire").put("policy", policy);
    return this;
  }

  /** Retries with exponential backoff from {@code base}, at most {@code max} apart, no jitter. */
  public TaskCommandJson retries(int maxRetries, Duration base, Duration max) {
    root.putObject("retry")
        .put("maxRetries", maxRetries)
        .put("backoffBaseMs", base.toMillis())
        .put("backoffMaxMs", max.toMillis())
        .put("jitter", false);
    return this;
  }

  /** An in-process executor by handler name, e.g. {@code noop} or {@code sleep}. */
  public TaskCommandJson inProcess(String handler) {
    root.putObject("executor").put("type", "IN_PROCESS").put("handler", handler);
    return this;
  }

  /**
   * An HTTP executor.
   *
   * @param method null for the server's default (POST)
   */
  public TaskCommandJson http(URI url, String method) {
    ObjectNode executor = root.putObject("executor").put("type", "HTTP").put("url", url.toString());
    if (method != null) {
      executor.put("method", method);
    }
    return this;
  }

  public TaskCommandJson timeout(Duration timeout) {
    root.put("timeoutMs", timeout.toMillis());
    return this;
  }

  public TaskCommandJson group(String group) {
    root.put("group", group);
    return this;
  }

  public TaskCommandJson maxRetries(int maxRetries) {
    root.putObject("retry").put("maxRetries", maxRetries);
    return this;
  }

  public TaskCommandJson param(String key, String value) {
    ObjectNode params =
        root.has("params") ? (ObjectNode) root.get("params") : root.putObject("params");
    params.put(key, value);
    return this;
  }

  public byte[] toBytes() {
    return AxJson.write(root);
  }

  /**
   * What a producer can tell about a command file before sending it: the key to send it with (its
   * {@code taskId}, or the {@code group} of a group's PAUSE or RESUME, which has no taskId) or why
   * it has none.
   *
   * @param key null when {@code problem} is set
   * @param problem null when the bytes are a JSON object with a string {@code taskId} or group
   */
  public record Peek(String key, String problem) {}

  /** Reads just enough of {@code json} to key it; never throws for bad input. */
  public static Peek peek(byte[] json) {
    JsonNode node;
    try {
      node = AxJson.MAPPER.readTree(json);
    } catch (IOException e) {
      String message = String.valueOf(e.getMessage());
      int newline = message.indexOf('\n');
      return new Peek(null, "not JSON: " + (newline < 0 ? message : message.substring(0, newline)));
    }
    if (node == null || !node.isObject()) {
      return new Peek(null, "not a JSON object");
    }
    if (node.path("taskId").isTextual()) {
      return new Peek(node.get("taskId").asText(), null);
    }
    if (!node.has("taskId") && node.path("group").isTextual()) {
      return new Peek(node.get("group").asText(), null); // a group's PAUSE or RESUME
    }
    return new Peek(null, "no string taskId");
  }
}
