package dev.ax.ingest;

import static dev.ax.common.model.InstanceStatus.CANCELLED;
import static dev.ax.common.model.InstanceStatus.PAUSED;
import static dev.ax.common.model.InstanceStatus.SCHEDULED;
import static dev.ax.common.store.Jdbc.Binder.values;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskSpecJson;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.TaskState;
import dev.ax.common.model.Trigger;
import dev.ax.common.model.TriggerGroups;
import dev.ax.common.model.TriggerType;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.schedule.Jitter;
import dev.ax.common.schedule.NextFiring;
import dev.ax.common.store.AuditLog;
import dev.ax.common.store.BatchMove;
import dev.ax.common.store.ChainHistory;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.JdbcTransaction;
import dev.ax.common.store.NewInstance;
import dev.ax.common.store.OneShotEnd;
import dev.ax.common.store.PacketTransaction;
import dev.ax.common.store.RecordRows;
import dev.ax.common.store.Sql;
import dev.ax.common.trace.TraceIds;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongFunction;
import javax.sql.DataSource;

/**
 * Ingest's SQL for UPDATE: a new version of a task's spec, in one transaction. The task's row is
 * locked and gets the new spec and version; its next firing follows the new spec, by the rules of
 * {@link NextFiring} (the new schedule's next slot, never an extra run). Of the task's pending
 * (SCHEDULED or PAUSED) slot instances, the one due at that first firing is kept and moves to the
 * new version; every other one that never ran is <em>removed</em>, with an audit row saying it was
 * superseded, so that no row of an old schedule can hold a slot id the new schedule reaches later
 * (a removed slot never fired: nothing about it is lost). The first firing is created when none was
 * kept (PAUSED when the task is). Instances that are no slot (RUN_NOW's, flow runs') are left as
 * they are, as are instances already DISPATCHED, RUNNING or RETRYING: each keeps the version it was
 * fired with. A DEPENDENCY task keeps its upstream tasks and its pending instances (they were
 * triggered by a flow run, not by time); a task cannot become or stop being a DEPENDENCY task. The
 * command's id is recorded, so a repeat changes nothing (see {@link TaskLifecycleStore}).
 *
 * <p>Thread-safe (stateless over a pool).
 */
final class TaskUpdateStore {

  /**
   * A task's row as an UPDATE reads it, locked. (public: {@link RecordRows} builds it by
   * reflection).
   */
  public record LockedTask(
      TaskState state, int version, TriggerType triggerType, long createdAtMs, String group) {}

  private static final String LOCK_TASK =
      "SELECT state, version, trigger_type, created_at_ms, task_group FROM ax_task"
          + " WHERE task_id = ? FOR UPDATE";

  private static final RecordRows<LockedTask> LOCKED_TASK = RecordRows.of(LockedTask.class);

  private final Jdbc jdbc;
  private final NextFiring firings;
  private final GroupRoom groupRoom;

  /** Without a bound on a group's live tasks: for the tests of the other rules. */
  TaskUpdateStore(DataSource dataSource, FireTimes fireTimes) {
    this(dataSource, fireTimes, Integer.MAX_VALUE);
  }

  /**
   * @param maxLivePerGroup {@code AX_MAX_ACTIVE_TASKS_PER_GROUP}: an UPDATE that would add a live
   *     task to a group holding that many is refused, as a CREATE is
   */
  TaskUpdateStore(DataSource dataSource, FireTimes fireTimes, int maxLivePerGroup) {
    this.jdbc = new Jdbc(dataSource);
    this.firings = new NextFiring(fireTimes);
    this.groupRoom = new GroupRoom(maxLivePerGroup);
  }

  TaskLifecycleStore.Result update(TaskLifecycleStore.Request request, TaskSpec spec) {
    return jdbc.inPacketTransaction(
        "updating task " + request.taskId(),
        tx -> {
          JdbcTransaction statements = tx.statements();
          Optional<LockedTask> row =
              statements.queryFirst(LOCK_TASK, values(request.taskId()), LOCKED_TASK);
          if (row.isEmpty()) {
            return refused("UPDATE for unknown task " + request.taskId());
          }
          if (TaskLifecycleStore.isRecorded(statements, request.taskId(), request.commandId())) {
            return new TaskLifecycleStore.Result.Duplicate();
          }
          LockedTask locked = row.get();
          TaskState state = locked.state();
          int version = locked.version() + 1;
          boolean wasDependency = locked.triggerType() == TriggerType.DEPENDENCY;
          Optional<Long> firstDueAtMs = Optional.empty();
          LongFunction<Optional<Long>> slotAfter = null;
          if (!(spec.trigger() instanceof Trigger.Dependency)) {
            NextFiring.History history =
                ChainHistory.read(
                    statements, request.taskId(), locked.createdAtMs(), locked.triggerType());
            firstDueAtMs = firings.firstDueAtMs(spec.trigger(), request.nowMs(), history);
            slotAfter = FirstSlot.after(firings, spec.trigger(), request.nowMs(), history);
          }
          String refusal = refusalOf(statements, request.taskId(), locked, spec, firstDueAtMs);
          if (refusal != null) {
            return refused(refusal);
          }
          // The superseded spec stays readable: instances fired with it run it.
          statements.update(
              "INSERT INTO ax_task_version (task_id, version, spec_json, superseded_at_ms)"
                  + " SELECT task_id, version, spec_json, ? FROM ax_task WHERE task_id = ?",
              values(request.nowMs(), request.taskId()));
          statements.update(
              "UPDATE ax_task SET version = ?, task_group = ?, trigger_type = ?, trigger_group = ?,"
                  + " spec_json = ?, updated_at_ms = ? WHERE task_id = ?",
              values(
                  version,
                  spec.group(),
                  spec.trigger().type().name(),
                  TriggerGroups.keyOf(spec.trigger()),
                  AxJson.writeString(TaskSpecJson.write(spec)),
                  request.nowMs(),
                  request.taskId()));
          boolean oneShot = spec.trigger() instanceof Trigger.Once;
          if (oneShot != (locked.triggerType() == TriggerType.ONCE)) {
            followTrigger(statements, request.taskId(), oneShot);
          }
          List<DueInstance> toAnnounce = new ArrayList<>();
          int moved = 0;
          if (!wasDependency) {
            // Waits for a firing transaction that holds the task's pending slots.
            List<Map.Entry<String, InstanceStatus>> pending =
                lockPendingSlots(statements, request.taskId());
            Optional<Long> firstSlot =
                FirstSlot.once(statements, request.taskId(), firstDueAtMs, slotAfter);
            moved =
                replan(
                    tx, statements, request, spec, version, firstSlot, pending, state, toAnnounce);
          }
          if (state == TaskState.ENDED) {
            // ACTIVE again, then ENDED again unless the new version gave it a run (a ONCE task
            // that fired already gets none; one made periodic does).
            OneShotEnd.reactivate(statements, request.taskId(), request.nowMs());
          }
          if (oneShot) {
            OneShotEnd.endIfDone(tx.connection(), List.of(request.taskId()), request.nowMs());
          }
          TaskLifecycleStore.record(statements, request, "UPDATE");
          return new TaskLifecycleStore.Result.Applied(moved, toAnnounce);
        });
  }

  /**
   * The live instances of a task whose trigger became or stopped being ONCE follow it ({@link
   * NewInstance#oneShot}): whichever of them ends last ends a task made ONCE, and none of a task
   * made periodic touches its row when it ends. Under the task's lock, before the instances'.
   */
  private static void followTrigger(JdbcTransaction statements, String taskId, boolean oneShot)
      throws SQLException {
    statements.update(
        "UPDATE ax_instance SET one_shot = ? WHERE task_id = ? AND status IN ("
            + OneShotEnd.LIVE_STATUSES
            + ")",
        values(oneShot ? 1 : 0, taskId));
  }

  /** Why the UPDATE may not be applied, by every rule in turn; null when it may. */
  private String refusalOf(
      JdbcTransaction statements,
      String taskId,
      LockedTask locked,
      TaskSpec spec,
      Optional<Long> firstDueAtMs)
      throws SQLException {
    boolean wasDependency = locked.triggerType() == TriggerType.DEPENDENCY;
    String refusal = refusal(taskId, locked.state(), wasDependency, spec, firstDueAtMs);
    if (refusal == null && wasDependency) {
      refusal = upstreamChange(statements, taskId, spec);
    }
    if (refusal == null) {
      refusal = groupRoom.refusal(statements, taskId, locked.state(), locked.group(), spec);
    }
    return refusal;
  }

  private static String refusal(
      String taskId,
      TaskState state,
      boolean wasDependency,
      TaskSpec spec,
      Optional<Long> firstDueAtMs) {
    boolean isDependency = spec.trigger() instanceof Trigger.Dependency;
    if (!TaskLifecycleStore.Transition.UPDATE.fromStates().contains(state)) {
      return "UPDATE of task " + taskId + ", which is " + state;
    }
    if (wasDependency != isDependency) {
      return "UPDATE cannot make task "
          + taskId
          + (isDependency ? " a DEPENDENCY task" : " stop being a DEPENDENCY task")
          + "; cancel it and create another";
    }
    if (firstDueAtMs.isEmpty() && NextFiring.neverFires(spec.trigger())) {
      return "trigger never fires: no fire time after now";
    }
    return null;
  }

  /** The reason to refuse a DEPENDENCY task's update that changes its upstream tasks, or null. */
  private static String upstreamChange(JdbcTransaction statements, String taskId, TaskSpec spec)
      throws SQLException {
    List<String> stored =
        statements.query(
            "SELECT upstream_task_id FROM ax_task_dependency WHERE task_id = ?"
                + " ORDER BY upstream_task_id",
            values(taskId),
            rs -> rs.getString(1));
    List<String> wanted =
        ((Trigger.Dependency) spec.trigger()).upstreamTaskIds().stream().sorted().toList();
    return stored.equals(wanted)
        ? null
        : "UPDATE cannot change the upstream tasks of DEPENDENCY task "
            + taskId
            + " yet; cancel it and create another";
  }

  /** The task's pending instances, locked, with their status. */
  private static List<Map.Entry<String, InstanceStatus>> lockPendingSlots(
      JdbcTransaction statements, String taskId) throws SQLException {
    return statements.query(
        // attempt 0: never ran. A PAUSED instance that ran (a retry or a replay held for a
        // RESUME) is a run under way, not a slot of the schedule: it is left as it is.
        "SELECT instance_id, status FROM ax_instance WHERE task_id = ? AND status IN (?, ?)"
            + " AND attempt = 0 FOR UPDATE",
        values(taskId, SCHEDULED.name(), PAUSED.name()),
        rs -> Map.entry(rs.getString(1), InstanceStatus.valueOf(rs.getString(2))));
  }

  /**
   * Keeps the pending slot instance due at {@code firstDueAtMs} (now at {@code version}) and
   * removes the other pending slot instances, creating the first firing of the new trigger when
   * none was kept.
   *
   * @param pending the task's pending instances, locked by this transaction
   * @return the instances moved, removed or created
   */
  private static int replan(
      PacketTransaction tx,
      JdbcTransaction statements,
      TaskLifecycleStore.Request request,
      TaskSpec spec,
      int version,
      Optional<Long> firstDueAtMs,
      List<Map.Entry<String, InstanceStatus>> pending,
      TaskState state,
      List<DueInstance> toAnnounce)
      throws SQLException {
    String firstId = firstDueAtMs.map(ms -> InstanceIds.of(request.taskId(), ms)).orElse(null);
    String reason = supersededReason(version, request.commandId());
    int moved = 0;
    boolean kept = false;
    List<AuditLog.Entry> audit = new ArrayList<>();
    List<String> removed = new ArrayList<>();
    for (Map.Entry<String, InstanceStatus> instance : pending) {
      String instanceId = instance.getKey();
      if (!InstanceIds.isSlotId(instanceId)) {
        continue; // RUN_NOW's extra instance: no slot of any schedule, it survives the UPDATE
      }
      if (instanceId.equals(firstId)) {
        kept = true;
        moved +=
            statements.update(
                "UPDATE ax_instance SET task_version = ?, updated_at_ms = ? WHERE instance_id = ?",
                values(version, request.nowMs(), firstId));
        audit.add(
            new AuditLog.Entry(
                firstId,
                request.taskId(),
                0,
                instance.getValue(),
                instance.getValue(),
                "now version " + version + " (command " + request.commandId() + ")"));
        continue;
      }
      removed.add(instanceId);
      audit.add(
          new AuditLog.Entry(
              instanceId, request.taskId(), 0, instance.getValue(), CANCELLED, reason));
    }
    if (firstId != null && !kept) {
      // A slot an earlier AX cancelled as superseded (it kept such rows) would block this one.
      statements
          .queryFirst(
              "SELECT 1 FROM ax_instance WHERE instance_id = ? AND status = ?"
                  + " AND dispatched_at_ms IS NULL",
              values(firstId, CANCELLED.name()),
              rs -> true)
          .ifPresent(stale -> removed.add(firstId));
    }
    for (String instanceId : removed) {
      moved +=
          statements.update("DELETE FROM ax_instance WHERE instance_id = ?", values(instanceId));
    }
    tx.audit(audit, request.actor(), request.nowMs());
    if (firstId == null || kept) {
      return moved;
    }
    long dueAtMs = Jitter.dueAtMs(spec, firstDueAtMs.get());
    Long seq = createFirstFiring(tx, request, spec, version, firstId, dueAtMs);
    if (seq == null) {
      return moved;
    }
    moved++;
    if (state == TaskState.PAUSED) {
      holdForResume(tx, request, seq);
    } else {
      toAnnounce.add(
          new DueInstance(
              firstId, request.taskId(), dueAtMs, request.traceId(), seq, version, 0, 0, null));
    }
    return moved;
  }

  /** The audit reason of a pending slot the new version removes. */
  private static String supersededReason(int version, String commandId) {
    return Sql.truncate(
        "superseded by version " + version + " (command " + commandId + "): removed, never fired",
        512);
  }

  /**
   * Creates the new version's first firing, SCHEDULED at {@code dueAtMs}.
   *
   * @return its sequence number, or null when the row existed already (nothing was created)
   */
  private static Long createFirstFiring(
      PacketTransaction tx,
      TaskLifecycleStore.Request request,
      TaskSpec spec,
      int version,
      String firstId,
      long dueAtMs)
      throws SQLException {
    Map<String, Long> created =
        tx.create(
            List.of(
                new NewInstance(
                    firstId,
                    request.taskId(),
                    version,
                    dueAtMs,
                    TraceIds.ofInstance(spec.trigger(), request.traceId(), firstId),
                    "first firing of version " + version,
                    null,
                    spec.trigger() instanceof Trigger.Once)),
            request.actor(),
            request.nowMs());
    return created.get(firstId);
  }

  /** Holds the first firing {@code seq} of a paused task PAUSED, to wait for its RESUME. */
  private static void holdForResume(
      PacketTransaction tx, TaskLifecycleStore.Request request, long seq) throws SQLException {
    tx.move(
        "seq",
        List.of(seq),
        BatchMove.from(SCHEDULED)
            .<String>to(PAUSED)
            .set("owner = NULL")
            .readBack("instance_id", rs -> rs.getString(1))
            .audit(request.actor(), "its task is paused: waits for RESUME"),
        request.nowMs(),
        false);
  }

  private static TaskLifecycleStore.Result refused(String reason) {
    return new TaskLifecycleStore.Result.Refused(reason);
  }
}
