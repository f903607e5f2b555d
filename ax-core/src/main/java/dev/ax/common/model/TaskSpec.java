package dev.ax.common.model;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * A task as the user defined it. Immutable; stored as JSON in {@code ax_task.spec_json}.
 *
 * @param taskId the user's id, also the Kafka key of every message about the task
 * @param group the bulkhead the task runs in
 * @param timeout how long one attempt may run
 * @param params passed to the executor (HTTP: nothing by default; shell: environment variables)
 * @param misfirePolicy what a periodic task does with slots it missed
 * @param maxFireAll the most missed slots {@link MisfirePolicy#FIRE_ALL} fires at once
 * @param concurrent whether a new instance may run while the previous one still runs
 * @param concurrencyPolicy what a non-concurrent task does with a firing while it still runs
 * @param name a short human name shown wherever the task is (at most {@link #MAX_NAME_CHARS});
 *     null: none
 * @param description what the task does, for people (at most {@link #MAX_DESCRIPTION_CHARS}); null:
 *     none
 * @param shardTotal how many shards each firing is run as, in parallel across the dispatchers
 *     (1..{@link #MAX_SHARDS}); 1: not sharded, one run per firing
 * @param rules overlap, catch-up window, jitter and calendars of a periodic task; {@code
 *     concurrent} and {@code concurrencyPolicy} are derived from its overlap policy (they are what
 *     older specs said, see {@link OverlapPolicy#ofLegacy})
 */
public record TaskSpec(
    String taskId,
    String group,
    Trigger trigger,
    ExecutorSpec executor,
    Duration timeout,
    RetryPolicy retry,
    Map<String, String> params,
    MisfirePolicy misfirePolicy,
    int maxFireAll,
    boolean concurrent,
    ConcurrencyPolicy concurrencyPolicy,
    String name,
    String description,
    int shardTotal,
    ScheduleRules rules) {

  public static final String DEFAULT_GROUP = "default";

  /**
   * The most shards a firing may have: each is an instance row, a due event and a run, made in the
   * one transaction that fans the firing out.
   */
  public static final int MAX_SHARDS = 100;

  public static final int MAX_NAME_CHARS = 200;

  public static final int MAX_DESCRIPTION_CHARS = 2000;

  /** A task whose overlap policy is what {@code concurrent} and {@code concurrencyPolicy} say. */
  public TaskSpec(
      String taskId,
      String group,
      Trigger trigger,
      ExecutorSpec executor,
      Duration timeout,
      RetryPolicy retry,
      Map<String, String> params,
      MisfirePolicy misfirePolicy,
      int maxFireAll,
      boolean concurrent,
      ConcurrencyPolicy concurrencyPolicy,
      String name,
      String description,
      int shardTotal) {
    this(
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
        concurrencyPolicy,
        name,
        description,
        shardTotal,
        ScheduleRules.DEFAULT.withOverlap(
            OverlapPolicy.ofLegacy(
                concurrent,
                concurrencyPolicy == null ? ConcurrencyPolicy.DEFAULT : concurrencyPolicy)));
  }

  /** A task that is not sharded. */
  public TaskSpec(
      String taskId,
      String group,
      Trigger trigger,
      ExecutorSpec executor,
      Duration timeout,
      RetryPolicy retry,
      Map<String, String> params,
      MisfirePolicy misfirePolicy,
      int maxFireAll,
      boolean concurrent,
      ConcurrencyPolicy concurrencyPolicy,
      String name,
      String description) {
    this(
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
        concurrencyPolicy,
        name,
        description,
        1);
  }

  /** A task without a name or description, not sharded. */
  public TaskSpec(
      String taskId,
      String group,
      Trigger trigger,
      ExecutorSpec executor,
      Duration timeout,
      RetryPolicy retry,
      Map<String, String> params,
      MisfirePolicy misfirePolicy,
      int maxFireAll,
      boolean concurrent,
      ConcurrencyPolicy concurrencyPolicy) {
    this(
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
        concurrencyPolicy,
        null,
        null);
  }

  public TaskSpec {
    Objects.requireNonNull(taskId, "taskId");
    Objects.requireNonNull(group, "group");
    Objects.requireNonNull(trigger, "trigger");
    Objects.requireNonNull(executor, "executor");
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(retry, "retry");
    Objects.requireNonNull(misfirePolicy, "misfirePolicy");
    MisfirePolicy.requireValidMaxFireAll(maxFireAll);
    if (shardTotal < 1 || shardTotal > MAX_SHARDS) {
      throw new IllegalArgumentException(
          "shardTotal must be in 1.." + MAX_SHARDS + ": " + shardTotal);
    }
    params = params == null ? Map.of() : Map.copyOf(params);
    rules = rules == null ? ScheduleRules.DEFAULT : rules;
    concurrent = rules.overlap() == OverlapPolicy.ALLOW_ALL;
    concurrencyPolicy =
        rules.overlap().bufferLimit() > 0 ? ConcurrencyPolicy.DELAY : ConcurrencyPolicy.SKIP;
  }

  /** What a firing does while the previous run is in flight. */
  public OverlapPolicy overlap() {
    return rules.overlap();
  }

  /** This spec with other schedule rules. */
  public TaskSpec withRules(ScheduleRules newRules) {
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
        concurrencyPolicy,
        name,
        description,
        shardTotal,
        newRules);
  }

  /** Whether each firing runs as {@link #shardTotal} shards. */
  public boolean isSharded() {
    return shardTotal > 1;
  }

  /** This spec under other ids (a namespace's qualified ones): task id, group and trigger. */
  public TaskSpec withIds(String newTaskId, String newGroup, Trigger newTrigger) {
    return with(newTaskId, newGroup, newTrigger, name, description);
  }

  /** This spec with {@code newName} and {@code newDescription} (either may be null). */
  public TaskSpec withLabels(String newName, String newDescription) {
    return with(taskId, group, trigger, newName, newDescription);
  }

  private TaskSpec with(
      String newTaskId,
      String newGroup,
      Trigger newTrigger,
      String newName,
      String newDescription) {
    return new TaskSpec(
        newTaskId,
        newGroup,
        newTrigger,
        executor,
        timeout,
        retry,
        params,
        misfirePolicy,
        maxFireAll,
        concurrent,
        concurrencyPolicy,
        newName,
        newDescription,
        shardTotal,
        rules);
  }
}
