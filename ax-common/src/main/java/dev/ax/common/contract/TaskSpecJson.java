package dev.ax.common.contract;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.common.model.ConcurrencyPolicy;
import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.ExecutorType;
import dev.ax.common.model.MisfirePolicy;
import dev.ax.common.model.RetryPolicy;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.schedule.CronSchedule;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads and writes the JSON form of a {@link TaskSpec} (the body of a CREATE command, and what
 * {@code ax_task.spec_json} holds), with the field-by-field validation the schema in {@code
 * schema/task-command.schema.json} describes. Reading throws {@link InvalidFieldException} with a
 * reason a producer can act on. Stateless and thread-safe.
 */
public final class TaskSpecJson {

  static final Pattern TASK_ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");
  static final Pattern GROUP = Pattern.compile("[A-Za-z0-9._-]{1,64}");
  private static final Pattern HANDLER = Pattern.compile("[A-Za-z0-9._-]{1,128}");
  private static final Pattern SCRIPT = Pattern.compile("[A-Za-z0-9._-]{1,128}");
  private static final Set<String> HTTP_METHODS = Set.of("GET", "POST", "PUT", "PATCH", "DELETE");

  /** The most retries a task may ask for. */
  static final int MAX_RETRIES = 100;

  /** The longest timeout a task may ask for; longer runs need a different design. */
  public static final Duration MAX_TIMEOUT = Duration.ofHours(24);

  private TaskSpecJson() {}

  /**
   * @param defaultTimeout applied when the task sets no {@code timeoutMs}
   * @param check the intake limits, or {@link IntakeCheck#STORED} for a spec AX stored
   * @throws InvalidFieldException with the reason when a field is missing or wrong
   */
  static TaskSpec read(String taskId, JsonNode node, Duration defaultTimeout, IntakeCheck check) {
    String group = optionalText(node, "group", TaskSpec.DEFAULT_GROUP);
    if (!GROUP.matcher(group).matches()) {
      throw new InvalidFieldException(
          "group must match " + GROUP.pattern() + ": " + Echo.of(group));
    }
    check.group(group);
    Trigger trigger = readTrigger(requireObject(node, "trigger"), check);
    ExecutorSpec executor = readExecutor(requireObject(node, "executor"), check);
    Duration timeout = defaultTimeout;
    if (node.hasNonNull("timeoutMs")) {
      long timeoutMs = requireLong(node, "timeoutMs");
      if (timeoutMs <= 0 || timeoutMs > MAX_TIMEOUT.toMillis()) {
        throw new InvalidFieldException(
            "timeoutMs must be in 1.." + MAX_TIMEOUT.toMillis() + ": " + timeoutMs);
      }
      timeout = Duration.ofMillis(timeoutMs);
    }
    RetryPolicy retry =
        node.hasNonNull("retry")
            ? readRetry(requireObject(node, "retry"), check)
            : RetryPolicy.DEFAULT;
    Map<String, String> params =
        readStringMap(node, "params", "params", check, check.limits().maxParams());
    check.params(params);
    JsonNode misfire = node.hasNonNull("misfire") ? requireObject(node, "misfire") : null;
    MisfirePolicy misfirePolicy =
        misfire == null
            ? MisfirePolicy.DEFAULT
            : readEnum(
                misfire, "policy", "misfire.policy", MisfirePolicy.class, MisfirePolicy.DEFAULT);
    int maxFireAll = MisfirePolicy.DEFAULT_MAX_FIRE_ALL;
    if (misfire != null && misfire.hasNonNull("maxFireAll")) {
      long max = requireLong(misfire, "maxFireAll", "misfire.maxFireAll");
      if (max < 1 || max > MisfirePolicy.MAX_FIRE_ALL_LIMIT) {
        throw new InvalidFieldException(
            "misfire.maxFireAll must be in 1.." + MisfirePolicy.MAX_FIRE_ALL_LIMIT + ": " + max);
      }
      maxFireAll = (int) max;
    }
    boolean concurrent = true;
    if (node.hasNonNull("concurrent")) {
      if (!node.get("concurrent").isBoolean()) {
        throw new InvalidFieldException("field 'concurrent' must be a boolean");
      }
      concurrent = node.get("concurrent").booleanValue();
    }
    ConcurrencyPolicy concurrencyPolicy =
        readEnum(
            node,
            "concurrencyPolicy",
            "concurrencyPolicy",
            ConcurrencyPolicy.class,
            ConcurrencyPolicy.DEFAULT);
    return new TaskSpec(
        taskId,
        group,
        trigger,
        executor,
        timeout,
        retry,
        params,
        misfirePolicy,
        maxFireAll,
        concurrent,
        concurrencyPolicy);
  }

  private static <E extends Enum<E>> E readEnum(
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

  /** Reads a spec this class wrote (from the database). */
  public static TaskSpec readStored(String taskId, String json) {
    try {
      return read(taskId, AxJson.MAPPER.readTree(json), Duration.ofSeconds(60), IntakeCheck.STORED);
    } catch (java.io.IOException | InvalidFieldException e) {
      throw new IllegalStateException(
          "stored spec of task " + taskId + " is unreadable: " + e.getMessage(), e);
    }
  }

  public static ObjectNode write(TaskSpec spec) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    ObjectNode node = f.objectNode();
    node.put("taskId", spec.taskId());
    node.put("group", spec.group());
    node.set("trigger", writeTrigger(spec.trigger()));
    node.set("executor", writeExecutor(spec.executor()));
    node.put("timeoutMs", spec.timeout().toMillis());
    ObjectNode retry = node.putObject("retry");
    retry.put("maxRetries", spec.retry().maxRetries());
    retry.put("backoffBaseMs", spec.retry().backoffBase().toMillis());
    retry.put("backoffMaxMs", spec.retry().backoffMax().toMillis());
    retry.put("jitter", spec.retry().jitter());
    if (!spec.params().isEmpty()) {
      ObjectNode params = node.putObject("params");
      spec.params().forEach(params::put);
    }
    ObjectNode misfire = node.putObject("misfire");
    misfire.put("policy", spec.misfirePolicy().name());
    misfire.put("maxFireAll", spec.maxFireAll());
    node.put("concurrent", spec.concurrent());
    node.put("concurrencyPolicy", spec.concurrencyPolicy().name());
    return node;
  }

  private static Trigger readTrigger(JsonNode node, IntakeCheck check) {
    String type = requireText(node, "type", "trigger.type").toUpperCase(Locale.ROOT);
    try {
      switch (type) {
        case "ONCE" -> {
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
        case "CRON" -> {
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
          return new Trigger.Cron(expression, zone);
        }
        case "FIXED_RATE" -> {
          return new Trigger.FixedRate(readInterval(node, check), readOptionalInstant(node, check));
        }
        case "FIXED_DELAY" -> {
          return new Trigger.FixedDelay(
              readInterval(node, check), readOptionalInstant(node, check));
        }
        case "DEPENDENCY" -> {
          JsonNode upstream = node.get("upstream");
          if (upstream == null || !upstream.isArray() || upstream.isEmpty()) {
            throw new InvalidFieldException(
                "trigger.upstream must be a non-empty array of task ids");
          }
          check.count("trigger.upstream", upstream.size(), check.limits().maxUpstream());
          List<String> ids = new ArrayList<>();
          for (JsonNode id : upstream) {
            if (!id.isTextual() || !TASK_ID.matcher(id.asText()).matches()) {
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
        default ->
            throw new InvalidFieldException(
                "unknown trigger type "
                    + Echo.of(type)
                    + " (expected one of ONCE, CRON, FIXED_RATE, FIXED_DELAY, DEPENDENCY)");
      }
    } catch (IllegalArgumentException e) {
      throw new InvalidFieldException(
          "trigger " + Echo.cut(type) + ": " + Echo.cut(e.getMessage()));
    }
  }

  private static Duration readInterval(JsonNode node, IntakeCheck check) {
    long intervalMs = requireLong(node, "intervalMs", "trigger.intervalMs");
    if (intervalMs <= 0) {
      throw new InvalidFieldException("trigger.intervalMs must be positive: " + intervalMs);
    }
    check.interval(intervalMs);
    return Duration.ofMillis(intervalMs);
  }

  private static Instant readOptionalInstant(JsonNode node, IntakeCheck check) {
    return node.has("startAt") || node.has("startAtMs")
        ? readInstant(node, "startAt", "startAtMs", check)
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

  private static ExecutorSpec readExecutor(JsonNode node, IntakeCheck check) {
    String typeText = requireText(node, "type", "executor.type").toUpperCase(Locale.ROOT);
    ExecutorType type;
    try {
      type = ExecutorType.valueOf(typeText);
    } catch (IllegalArgumentException e) {
      throw new InvalidFieldException(
          "unknown executor type "
              + Echo.of(typeText)
              + " (expected one of HTTP, SHELL, IN_PROCESS)");
    }
    switch (type) {
      case HTTP -> {
        String urlText = requireText(node, "url", "executor.url");
        check.url(urlText);
        URI url;
        try {
          url = new URI(urlText);
        } catch (URISyntaxException e) {
          throw new InvalidFieldException("executor.url is not a URI: " + Echo.of(urlText));
        }
        String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || url.getHost() == null) {
          throw new InvalidFieldException(
              "executor.url must be an http(s) URL with a host: " + Echo.of(urlText));
        }
        String method = optionalText(node, "method", "POST").toUpperCase(Locale.ROOT);
        if (!HTTP_METHODS.contains(method)) {
          throw new InvalidFieldException(
              "executor.method must be one of " + HTTP_METHODS + ": " + Echo.of(method));
        }
        String body = node.hasNonNull("body") ? bodyText(node.get("body")) : null;
        if (body != null) {
          check.body(body);
        }
        Map<String, String> headers =
            readStringMap(node, "headers", "executor.headers", check, check.limits().maxHeaders());
        check.headers(headers);
        return ExecutorSpec.http(url, method, headers, body);
      }
      case IN_PROCESS -> {
        String handler = requireText(node, "handler", "executor.handler");
        if (!HANDLER.matcher(handler).matches()) {
          throw new InvalidFieldException(
              "executor.handler must match " + HANDLER.pattern() + ": " + Echo.of(handler));
        }
        return ExecutorSpec.inProcess(handler);
      }
      case SHELL -> {
        String script = requireText(node, "script", "executor.script");
        if (!SCRIPT.matcher(script).matches() || script.contains("..")) {
          throw new InvalidFieldException(
              "executor.script must be a plain file name inside the script directory: "
                  + Echo.of(script));
        }
        List<String> args = new ArrayList<>();
        JsonNode argsNode = node.get("args");
        if (argsNode != null && !argsNode.isNull()) {
          if (!argsNode.isArray()) {
            throw new InvalidFieldException("executor.args must be an array of strings");
          }
          check.count("executor.args", argsNode.size(), check.limits().maxArgs());
          for (JsonNode arg : argsNode) {
            if (!arg.isTextual()) {
              throw new InvalidFieldException(
                  "executor.args must be an array of strings: " + Echo.cut(arg.toString()));
            }
            check.arg(args.size(), arg.asText());
            args.add(arg.asText());
          }
        }
        return new ExecutorSpec(ExecutorType.SHELL, null, null, null, null, null, script, args);
      }
      default -> throw new AssertionError(type);
    }
  }

  private static String bodyText(JsonNode body) {
    return body.isTextual() ? body.asText() : body.toString();
  }

  private static RetryPolicy readRetry(JsonNode node, IntakeCheck check) {
    // Ranges are checked on the long, before any narrowing: (int) Long.MAX_VALUE is -1.
    long maxRetries =
        node.has("maxRetries")
            ? requireLong(node, "maxRetries", "retry.maxRetries")
            : RetryPolicy.DEFAULT_MAX_RETRIES;
    if (maxRetries < 0 || maxRetries > MAX_RETRIES) {
      throw new InvalidFieldException(
          "retry.maxRetries must be in 0.." + MAX_RETRIES + ": " + maxRetries);
    }
    long baseMs =
        node.has("backoffBaseMs")
            ? requireLong(node, "backoffBaseMs", "retry.backoffBaseMs")
            : RetryPolicy.DEFAULT_BACKOFF_BASE.toMillis();
    if (baseMs < 1) {
      throw new InvalidFieldException("retry.backoffBaseMs must be positive: " + baseMs);
    }
    check.backoff("retry.backoffBaseMs", baseMs);
    long maxMs =
        node.has("backoffMaxMs")
            ? requireLong(node, "backoffMaxMs", "retry.backoffMaxMs")
            : Math.max(RetryPolicy.DEFAULT_BACKOFF_MAX.toMillis(), baseMs);
    if (maxMs < baseMs) {
      throw new InvalidFieldException(
          "retry.backoffMaxMs must be at least retry.backoffBaseMs: " + maxMs + " < " + baseMs);
    }
    check.backoff("retry.backoffMaxMs", maxMs);
    boolean jitter = true;
    if (node.hasNonNull("jitter")) {
      if (!node.get("jitter").isBoolean()) {
        throw new InvalidFieldException("field 'retry.jitter' must be a boolean");
      }
      jitter = node.get("jitter").booleanValue();
    }
    try {
      return new RetryPolicy(
          (int) maxRetries, Duration.ofMillis(baseMs), Duration.ofMillis(maxMs), jitter);
    } catch (IllegalArgumentException e) {
      throw new InvalidFieldException("retry: " + Echo.cut(e.getMessage()));
    }
  }

  private static ObjectNode writeTrigger(Trigger trigger) {
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
    } else if (trigger instanceof Trigger.FixedRate rate) {
      node.put("intervalMs", rate.interval().toMillis());
      if (rate.startAt() != null) {
        node.put("startAtMs", rate.startAt().toEpochMilli());
      }
    } else if (trigger instanceof Trigger.FixedDelay delay) {
      node.put("intervalMs", delay.interval().toMillis());
      if (delay.startAt() != null) {
        node.put("startAtMs", delay.startAt().toEpochMilli());
      }
    } else if (trigger instanceof Trigger.Dependency dependency) {
      ArrayNode upstream = node.putArray("upstream");
      dependency.upstreamTaskIds().forEach(upstream::add);
    }
    return node;
  }

  private static ObjectNode writeExecutor(ExecutorSpec executor) {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("type", executor.type().name());
    switch (executor.type()) {
      case HTTP -> {
        node.put("url", executor.url().toString());
        node.put("method", executor.method());
        if (!executor.headers().isEmpty()) {
          ObjectNode headers = node.putObject("headers");
          executor.headers().forEach(headers::put);
        }
        if (executor.body() != null) {
          node.put("body", executor.body());
        }
      }
      case IN_PROCESS -> node.put("handler", executor.handler());
      case SHELL -> {
        node.put("script", executor.script());
        ArrayNode args = node.putArray("args");
        executor.args().forEach(args::add);
      }
      default -> throw new AssertionError(executor.type());
    }
    return node;
  }

  static JsonNode requireObject(JsonNode node, String field) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      throw new InvalidFieldException("missing field '" + field + "'");
    }
    if (!value.isObject()) {
      throw new InvalidFieldException("field '" + field + "' must be an object");
    }
    return value;
  }

  static String requireText(JsonNode node, String field) {
    return requireText(node, field, field);
  }

  static String requireText(JsonNode node, String field, String path) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      throw new InvalidFieldException("missing field '" + path + "'");
    }
    if (!value.isTextual() || value.asText().isBlank()) {
      throw new InvalidFieldException("field '" + path + "' must be a non-empty string");
    }
    return value.asText();
  }

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

  static long requireLong(JsonNode node, String field, String path) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      throw new InvalidFieldException("missing field '" + path + "'");
    }
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

  private static Map<String, String> readStringMap(
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
}
