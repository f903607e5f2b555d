package dev.ax.common.contract;

import static dev.ax.common.contract.JsonFields.optionalStringMap;
import static dev.ax.common.contract.JsonFields.optionalText;
import static dev.ax.common.contract.JsonFields.requireLong;
import static dev.ax.common.contract.JsonFields.requireObject;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.Namespace;
import dev.ax.common.model.OverlapPolicy;
import dev.ax.common.model.RetryPolicy;
import dev.ax.common.model.ScheduleRules;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads and writes the JSON form of a {@link TaskSpec} (the body of a CREATE command, and what
 * {@code ax_task.spec_json} holds), with the field-by-field validation the schema in {@code
 * schema/task-command.schema.json} describes. Reading throws {@link InvalidFieldException} with a
 * reason a producer can act on. The nested objects have their own reader and writer: {@link
 * TriggerJson}, {@link ExecutorJson}, {@link RetryJson}, {@link MisfireJson}; the field checks they
 * share are {@link JsonFields}. Fields are read in a fixed order, so a spec with several wrong
 * fields is always refused for the same one.
 *
 * <p>Stateless and thread-safe.
 */
public final class TaskSpecJson {

  static final Pattern TASK_ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");
  static final Pattern GROUP = Pattern.compile("[A-Za-z0-9._-]{1,64}");

  /**
   * A stored group or upstream id may carry its namespace ({@code ns~name}; see {@link
   * dev.ax.common.model.Namespace}); what a producer writes never does.
   */
  private static final String QUALIFIER = "(?:[a-z][a-z0-9-]{0,30}~)?";

  static final Pattern STORED_GROUP = Pattern.compile(QUALIFIER + "[A-Za-z0-9._-]{1,64}");
  static final Pattern STORED_TASK_ID = Pattern.compile(QUALIFIER + "[A-Za-z0-9._:-]{1,128}");

  /** The group pattern for what {@code check} reads: a producer's, or a stored spec's. */
  static Pattern groupPattern(IntakeCheck check) {
    return check.enforced() ? GROUP : STORED_GROUP;
  }

  /** The task id pattern for what {@code check} reads: a producer's, or a stored spec's. */
  static Pattern taskIdPattern(IntakeCheck check) {
    return check.enforced() ? TASK_ID : STORED_TASK_ID;
  }

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
    if (check.enforced() && group.indexOf(Namespace.SEPARATOR) >= 0) {
      throw new InvalidFieldException(CrossNamespace.reason("group", group));
    }
    if (!groupPattern(check).matcher(group).matches()) {
      throw new InvalidFieldException(
          "group must match " + GROUP.pattern() + ": " + Echo.of(group));
    }
    check.group(group);
    Trigger trigger = TriggerJson.read(requireObject(node, "trigger"), check);
    ExecutorSpec executor = ExecutorJson.read(requireObject(node, "executor"), check);
    Duration timeout = readTimeout(node, defaultTimeout);
    RetryPolicy retry =
        node.hasNonNull("retry")
            ? RetryJson.read(requireObject(node, "retry"), check)
            : RetryPolicy.DEFAULT;
    Map<String, String> params =
        optionalStringMap(node, "params", "params", check, check.limits().maxParams());
    check.params(params);
    MisfireJson.Misfire misfire =
        MisfireJson.read(node.hasNonNull("misfire") ? requireObject(node, "misfire") : null);
    ScheduleRules rules = ScheduleRulesJson.read(node, check);
    if (check.enforced()
        && rules.overlap() == OverlapPolicy.CANCEL_OTHER
        && node.hasNonNull("sharding")) {
      throw new InvalidFieldException(
          "overlap CANCEL_OTHER does not go with sharding: each shard is a run of its own");
    }
    return new TaskSpec(
        taskId,
        group,
        trigger,
        executor,
        timeout,
        retry,
        params,
        misfire.policy(),
        misfire.maxFireAll(),
        false,
        null,
        label(node, "name", TaskSpec.MAX_NAME_CHARS, false, check),
        label(node, "description", TaskSpec.MAX_DESCRIPTION_CHARS, true, check),
        readShardTotal(node),
        rules);
  }

  /** {@code "sharding": {"total": N}}, N in 1..{@link TaskSpec#MAX_SHARDS}; 1 when absent. */
  private static int readShardTotal(JsonNode node) {
    if (!node.hasNonNull("sharding")) {
      return 1;
    }
    JsonNode sharding = requireObject(node, "sharding");
    long total = requireLong(sharding, "total", "sharding.total");
    if (total < 1 || total > TaskSpec.MAX_SHARDS) {
      throw new InvalidFieldException(
          "sharding.total must be in 1.." + TaskSpec.MAX_SHARDS + ": " + total);
    }
    return (int) total;
  }

  /**
   * An optional text for people: not blank, at most {@code maxChars}, no control character but, for
   * a multi-line one, line breaks and tabs; null when absent.
   */
  private static String label(
      JsonNode node, String field, int maxChars, boolean multiLine, IntakeCheck check) {
    String text = optionalText(node, field, null);
    if (text == null || !check.enforced()) {
      return text;
    }
    if (text.isBlank()) {
      throw new InvalidFieldException(field + " must not be blank (leave it out instead)");
    }
    if (text.length() > maxChars) {
      throw new InvalidFieldException(
          field + " must be at most " + maxChars + " characters: it has " + text.length());
    }
    boolean control =
        text.chars()
            .anyMatch(
                c ->
                    Character.isISOControl(c)
                        && !(multiLine && (c == '\n' || c == '\t' || c == '\r')));
    if (control) {
      throw new InvalidFieldException(
          field
              + " holds a control character"
              + (multiLine ? " (line breaks and tabs are allowed)" : "")
              + ": "
              + Echo.of(text));
    }
    return text;
  }

  private static Duration readTimeout(JsonNode node, Duration defaultTimeout) {
    if (!node.hasNonNull("timeoutMs")) {
      return defaultTimeout;
    }
    long timeoutMs = requireLong(node, "timeoutMs");
    if (timeoutMs <= 0 || timeoutMs > MAX_TIMEOUT.toMillis()) {
      throw new InvalidFieldException(
          "timeoutMs must be in 1.." + MAX_TIMEOUT.toMillis() + ": " + timeoutMs);
    }
    return Duration.ofMillis(timeoutMs);
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

  /**
   * The spec as its namespace's producers write it: task id, group and upstream ids without the
   * namespace, so that what a user is shown can be sent back as an UPDATE on the namespace's topic.
   */
  public static ObjectNode writeAsProduced(TaskSpec spec) {
    Trigger trigger = spec.trigger();
    if (trigger instanceof Trigger.Dependency dependency) {
      trigger =
          new Trigger.Dependency(
              dependency.upstreamTaskIds().stream().map(Namespace::localId).toList());
    }
    TaskSpec local =
        spec.withIds(Namespace.localId(spec.taskId()), Namespace.localId(spec.group()), trigger);
    if (!spec.rules().calendars().isEmpty()) {
      local =
          local.withRules(
              spec.rules()
                  .withCalendars(
                      spec.rules().calendars().stream().map(Namespace::localId).toList()));
    }
    return write(local);
  }

  public static ObjectNode write(TaskSpec spec) {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("taskId", spec.taskId());
    node.put("group", spec.group());
    node.set("trigger", TriggerJson.write(spec.trigger()));
    node.set("executor", ExecutorJson.write(spec.executor()));
    node.put("timeoutMs", spec.timeout().toMillis());
    node.set("retry", RetryJson.write(spec.retry()));
    if (!spec.params().isEmpty()) {
      ObjectNode params = node.putObject("params");
      spec.params().forEach(params::put);
    }
    node.set("misfire", MisfireJson.write(spec.misfirePolicy(), spec.maxFireAll()));
    ScheduleRulesJson.write(spec.rules(), node);
    if (spec.name() != null) {
      node.put("name", spec.name());
    }
    if (spec.description() != null) {
      node.put("description", spec.description());
    }
    if (spec.isSharded()) {
      node.putObject("sharding").put("total", spec.shardTotal());
    }
    return node;
  }
}
