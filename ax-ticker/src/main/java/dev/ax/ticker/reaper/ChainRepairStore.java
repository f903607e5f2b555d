package dev.ax.ticker.reaper;

import static dev.ax.common.model.InstanceStatus.DISPATCHED;
import static dev.ax.common.model.InstanceStatus.PAUSED;
import static dev.ax.common.model.InstanceStatus.RETRYING;
import static dev.ax.common.model.InstanceStatus.RUNNING;
import static dev.ax.common.model.InstanceStatus.SCHEDULED;
import static dev.ax.common.store.Jdbc.Binder.values;

import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TaskState;
import dev.ax.common.model.Trigger;
import dev.ax.common.model.TriggerType;
import dev.ax.common.schedule.Jitter;
import dev.ax.common.schedule.NextFiring;
import dev.ax.common.store.ChainHistory;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.JdbcTransaction;
import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.NewInstance;
import dev.ax.common.store.RecordRows;
import dev.ax.common.store.Sql;
import dev.ax.common.store.StoredTask;
import dev.ax.common.trace.TraceIds;
import dev.ax.ticker.fire.TasksWithInstances;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The SQL of {@link ChainRepair}: pages of ACTIVE periodic tasks, which of them have a live
 * instance, and the gated restore of one chain.
 *
 * <p>Thread-safe (stateless over a pool).
 */
public final class ChainRepairStore {

  /** What one restore came to. */
  sealed interface Restore {
    /** The chain's next firing was created. */
    record Restored(String instanceId, long dueAtMs) implements Restore {}

    /** Nothing to do now: the task changed, has a live instance, or its run just ended. */
    record NotNeeded(String why) implements Restore {}

    /** The schedule has no fire time left: the chain ended where it should. */
    record Ended() implements Restore {}

    /** The next firing's id is taken by a row that is not live: the chain cannot go on by id. */
    record Blocked(String instanceId) implements Restore {}
  }

  /** A page of ACTIVE tasks of one trigger type, by task id, after a cursor. */
  static final String ACTIVE_PAGE =
      "SELECT task_id FROM ax_task FORCE INDEX (ax_task_trigger_state)"
          + " WHERE trigger_type = ? AND state = "
          + Sql.literals(TaskState.ACTIVE)
          + " AND task_id > ?"
          + " ORDER BY task_id LIMIT ?";

  /** The statuses of a live instance: a task with one has its chain. */
  static final List<InstanceStatus> LIVE =
      List.of(SCHEDULED, PAUSED, DISPATCHED, RUNNING, RETRYING);

  /**
   * {@link #withLiveInstance}'s read ({@link TasksWithInstances}): per task, a few ranges of the
   * {@code (task_id, status)} index, so it costs the page's live rows, not every instance the tasks
   * ever had (as through {@code (task_id, due_at_ms)}) nor every live row of every task (as through
   * a status-first index: ten million pending one-shots would be read on every pass).
   */
  static String withLiveInstanceSql(String in) {
    return TasksWithInstances.sql(in, LIVE.size());
  }

  /** Whether one task has a live instance, in {@link #restore}'s transaction. */
  private static final String HAS_LIVE_INSTANCE =
      "SELECT 1 FROM ax_instance WHERE task_id = ? AND status IN ("
          + Sql.literals(LIVE.toArray(InstanceStatus[]::new))
          + ") LIMIT 1";

  /**
   * Reads a task's row as {@link #restore} locks it. (public: {@link RecordRows} builds it by
   * reflection).
   */
  public record LockedTask(TaskState state, int version, long createdAtMs) {}

  private static final RecordRows<LockedTask> LOCKED_TASK = RecordRows.of(LockedTask.class);

  private final Jdbc jdbc;

  public ChainRepairStore(DataSource dataSource) {
    this.jdbc = new Jdbc(dataSource);
  }

  /**
   * Up to {@code limit} ACTIVE tasks of {@code type} after {@code afterTaskId}, by task id (through
   * the index on trigger type and state, whose rows are ordered by task id within one type and
   * state).
   */
  List<String> activePage(TriggerType type, String afterTaskId, int limit) {
    return jdbc.query(
        "reading active " + type + " tasks",
        ACTIVE_PAGE,
        values(type.name(), afterTaskId, limit),
        rs -> rs.getString(1));
  }

  /**
   * Those of {@code taskIds} with an instance SCHEDULED, PAUSED, DISPATCHED, RUNNING or RETRYING.
   */
  Set<String> withLiveInstance(Collection<String> taskIds) {
    return TasksWithInstances.among(jdbc, "checking live instances", taskIds, LIVE);
  }

  /**
   * Restores the chain of {@code task} in one transaction, through the gate every run-creating path
   * takes: the task's row is read under a shared lock (the lifecycle commands take it exclusive),
   * and the task must still be ACTIVE at {@code task.version()} with no live instance; the leader's
   * fence must hold. The next firing is {@link NextFiring}'s, from the task's history. A
   * FIXED_DELAY task whose last run ended less than {@code quietMs} ago is left to its chainer.
   */
  Restore restore(
      String taskId,
      StoredTask task,
      NextFiring nextFiring,
      LeaseFence fence,
      long quietMs,
      long nowMs) {
    return jdbc.inPacketTransaction(
        "restoring the chain of task " + taskId,
        tx -> {
          JdbcTransaction statements = tx.statements();
          Optional<LockedTask> row =
              statements.queryFirst(
                  "SELECT state, version, created_at_ms FROM ax_task WHERE task_id = ?"
                      + " LOCK IN SHARE MODE",
                  values(taskId),
                  LOCKED_TASK);
          if (row.isEmpty()
              || row.get().state() != TaskState.ACTIVE
              || row.get().version() != task.version()) {
            return new Restore.NotNeeded("changed meanwhile");
          }
          boolean leads =
              statements
                  .queryFirst(
                      "SELECT 1 FROM DUAL WHERE " + LeaseFence.CONDITION,
                      values(fence.leaseName(), fence.holder(), fence.epoch()),
                      rs -> true)
                  .isPresent();
          if (!leads) {
            return new Restore.NotNeeded("not the leader");
          }
          if (statements.queryFirst(HAS_LIVE_INSTANCE, values(taskId), rs -> true).isPresent()) {
            return new Restore.NotNeeded("has a live instance");
          }
          NextFiring.History history =
              ChainHistory.read(
                  statements, taskId, row.get().createdAtMs(), task.spec().trigger().type());
          if (task.spec().trigger().type() == TriggerType.FIXED_DELAY
              && history.lastEndedAtMs() != null
              && nowMs - history.lastEndedAtMs() < quietMs) {
            return new Restore.NotNeeded("its last run just ended: the chainer follows");
          }
          Optional<Long> dueAtMs = nextFiring.firstDueAtMs(task.spec().trigger(), nowMs, history);
          if (dueAtMs.isEmpty()) {
            return new Restore.Ended();
          }
          String instanceId = InstanceIds.of(taskId, dueAtMs.get());
          Map<String, Long> created =
              tx.create(
                  List.of(
                      new NewInstance(
                          instanceId,
                          taskId,
                          task.version(),
                          Jitter.dueAtMs(task.spec(), dueAtMs.get()),
                          TraceIds.forRun(task.traceId(), instanceId),
                          "next firing (chain repaired by the reaper)",
                          null,
                          task.spec().trigger() instanceof Trigger.Once)),
                  fence.holder(),
                  nowMs);
          return created.containsKey(instanceId)
              ? new Restore.Restored(instanceId, dueAtMs.get())
              : new Restore.Blocked(instanceId);
        });
  }
}
