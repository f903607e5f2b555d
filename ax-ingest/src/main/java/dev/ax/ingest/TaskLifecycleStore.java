package dev.ax.ingest;

import static dev.ax.common.model.InstanceStatus.CANCELLED;
import static dev.ax.common.model.InstanceStatus.DISPATCHED;
import static dev.ax.common.model.InstanceStatus.PAUSED;
import static dev.ax.common.model.InstanceStatus.RETRYING;
import static dev.ax.common.model.InstanceStatus.SCHEDULED;
import static dev.ax.common.store.Jdbc.Binder.values;

import dev.ax.common.contract.CommandType;
import dev.ax.common.kafka.Topics;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TaskState;
import dev.ax.common.model.TriggerType;
import dev.ax.common.store.BatchMove;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.JdbcTransaction;
import dev.ax.common.store.NewInstance;
import dev.ax.common.store.OneShotEnd;
import dev.ax.common.store.PacketTransaction;
import dev.ax.common.store.Sql;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * Ingest's SQL for the commands that change an existing task: CANCEL, DELETE, PAUSE, RESUME and
 * RUN_NOW. Each applies in one transaction (a group's PAUSE or RESUME applies it to a page of tasks
 * in one, see {@link GroupLifecycleStore}): the task's row is locked, the command's id is checked
 * against {@code ax_task_command} (a command applied before changes nothing), the task's state
 * moves, its pending instances move with their audit rows ({@link PendingInstances}), and the
 * command's id is recorded.
 *
 * <p>An ENDED task (a one-shot task whose run is over, {@link OneShotEnd}) takes CANCEL and DELETE
 * as a finished task does, RUN_NOW (ACTIVE again, with its new instance) and UPDATE; PAUSE and
 * RESUME are refused. A RESUME of a paused one-shot task whose run ended meanwhile ends it.
 *
 * <p>Why a concurrent firing cannot leave a cancelled or paused task with a live instance: the
 * pending instances are read with {@code FOR UPDATE} on the {@code (task_id, due_at_ms)} index, a
 * locking read of the latest committed rows that also locks the gaps of the task's range. A firing
 * that committed before it left its successor in the range, and it is read and moved; a firing
 * after it finds its instance moved, moves nothing and so creates no successor (the ticker creates
 * successors only for rows it moved).
 *
 * <p>Thread-safe (stateless over a pool).
 */
final class TaskLifecycleStore {

  /**
   * What one command does to a task and its instances: the task states it applies in and the one it
   * leaves, the instance statuses it moves and the one they go to, and its past tense for audit
   * rows, logs and meters. One constant per lifecycle command, named as its {@link CommandType}.
   */
  enum Transition {
    CANCEL(
        Set.of(TaskState.ACTIVE, TaskState.PAUSED, TaskState.ENDED),
        TaskState.CANCELLED,
        List.of(SCHEDULED, DISPATCHED, RETRYING, PAUSED),
        CANCELLED,
        "cancelled"),
    PAUSE(
        Set.of(TaskState.ACTIVE),
        TaskState.PAUSED,
        List.of(SCHEDULED, DISPATCHED),
        PAUSED,
        "paused"),
    RESUME(Set.of(TaskState.PAUSED), TaskState.ACTIVE, List.of(PAUSED), SCHEDULED, "resumed"),

    /**
     * CANCEL's effect on the instances, and the task becomes DELETED: terminal, it takes no further
     * command (none lists DELETED among its states), and retention removes its row once its
     * instances are gone. A CANCELLED task can still be deleted.
     */
    DELETE(
        Set.of(TaskState.ACTIVE, TaskState.PAUSED, TaskState.CANCELLED, TaskState.ENDED),
        TaskState.DELETED,
        List.of(SCHEDULED, DISPATCHED, RETRYING, PAUSED),
        CANCELLED,
        "deleted"),

    /**
     * Moves nothing: adds one instance, due now (see {@link #runNow}); an ENDED one-shot task is
     * ACTIVE again for it.
     */
    RUN_NOW(
        Set.of(TaskState.ACTIVE, TaskState.ENDED),
        TaskState.ACTIVE,
        List.of(),
        SCHEDULED,
        "run now"),

    /**
     * A new spec version: applied by {@link TaskUpdateStore}, not by {@link #apply}; an ENDED task
     * is ACTIVE again when the new version gives it a run.
     */
    UPDATE(
        Set.of(TaskState.ACTIVE, TaskState.PAUSED, TaskState.ENDED),
        null,
        List.of(),
        SCHEDULED,
        "updated");

    static final List<Transition> ALL = List.of(CANCEL, PAUSE, RESUME, RUN_NOW, UPDATE, DELETE);

    private final Set<TaskState> fromStates;
    private final TaskState toState;
    private final List<InstanceStatus> fromStatuses;
    private final InstanceStatus toStatus;
    private final String verb;

    /**
     * Checks every task state move of the command against {@link TaskState}'s table, once per
     * constant, so a command whose states left the table fails at class load. {@code toState} null:
     * the command keeps the state (UPDATE); a from state equal to {@code toState} is no move (a
     * RUN_NOW of an ACTIVE task).
     */
    Transition(
        Set<TaskState> fromStates,
        TaskState toState,
        List<InstanceStatus> fromStatuses,
        InstanceStatus toStatus,
        String verb) {
      for (TaskState from : fromStates) {
        if (toState != null && from != toState) {
          TaskState.require(from, toState);
        }
      }
      this.fromStates = fromStates;
      this.toState = toState;
      this.fromStatuses = fromStatuses;
      this.toStatus = toStatus;
      this.verb = verb;
    }

    Set<TaskState> fromStates() {
      return fromStates;
    }

    TaskState toState() {
      return toState;
    }

    List<InstanceStatus> fromStatuses() {
      return fromStatuses;
    }

    InstanceStatus toStatus() {
      return toStatus;
    }

    String verb() {
      return verb;
    }

    static Transition of(CommandType type) {
      return switch (type) {
        case CANCEL -> CANCEL;
        case PAUSE -> PAUSE;
        case RESUME -> RESUME;
        case RUN_NOW -> RUN_NOW;
        case UPDATE -> UPDATE;
        case DELETE -> DELETE;
        default -> throw new IllegalArgumentException("not a lifecycle command: " + type);
      };
    }
  }

  /** What a command came to. */
  sealed interface Result {
    /**
     * Applied: the task moved, and {@code instances} instances with it; {@code toAnnounce} are the
     * instances a RESUME made SCHEDULED again or a RUN_NOW created (for the ticker), else empty;
     * {@code pausedFiringsSkipped} the held firings a RESUME recorded SKIPPED (reason paused).
     */
    record Applied(int instances, List<DueInstance> toAnnounce, int pausedFiringsSkipped)
        implements Result {

      /** Applied, skipping no held firing of a paused task (see {@link PendingInstances}). */
      Applied(int instances, List<DueInstance> toAnnounce) {
        this(instances, toAnnounce, 0);
      }
    }

    /** Applied before (its id is recorded): nothing changed this time. */
    record Duplicate() implements Result {}

    /**
     * Not applicable to the task as it is (unknown, cancelled, deleted, not paused): nothing
     * changed.
     */
    record Refused(String reason) implements Result {}
  }

  /**
   * One lifecycle command to apply to one task.
   *
   * @param group for a task reached by a group command: the group it named (kept in the audit
   *     reason); else null
   * @param interrupt CANCEL or DELETE: RUNNING instances are CANCELLED too (their dispatcher then
   *     interrupts the attempt)
   */
  record Request(
      String commandId,
      String taskId,
      String group,
      String reason,
      String traceId,
      String actor,
      long nowMs,
      boolean interrupt) {

    /** The same command for another task (a group command applies to each of its tasks). */
    Request forTask(String otherTaskId) {
      return new Request(commandId, otherTaskId, group, reason, traceId, actor, nowMs, interrupt);
    }

    /** What the audit rows of the instances {@code transition} moves for this request say. */
    String auditReason(Transition transition) {
      return transition.verb()
          + " by command "
          + commandId
          + (group == null ? "" : " for group " + group)
          + (reason == null ? "" : ": " + reason);
    }
  }

  private final Jdbc jdbc;
  private final Topics topics;

  /** With the unprefixed topics: for tests that read no events. */
  TaskLifecycleStore(DataSource dataSource) {
    this(dataSource, new Topics(""));
  }

  /**
   * @param topics where the completion events of firings a RESUME skips go
   */
  TaskLifecycleStore(DataSource dataSource, Topics topics) {
    this.jdbc = new Jdbc(dataSource);
    this.topics = topics;
  }

  /**
   * Applies {@code transition} to the task: CANCEL (fires no more; SCHEDULED, DISPATCHED, RETRYING
   * and PAUSED instances CANCELLED), DELETE (as CANCEL, and the task DELETED), PAUSE (SCHEDULED and
   * DISPATCHED instances PAUSED), RESUME (PAUSED instances SCHEDULED again, due when they were: the
   * ticker fires them late, by the task's misfire policy), RUN_NOW (one more instance, due now). A
   * RUNNING attempt is left to finish, but for a CANCEL or DELETE with {@code interrupt}: its
   * instance is CANCELLED too (the attempt's outcome will then not match, and its dispatcher
   * interrupts it at its next lease renewal); such a command also applies to a task cancelled (or
   * deleted) already, to interrupt what it left running.
   */
  Result apply(Transition transition, Request request) {
    return jdbc.inPacketTransaction(
        transition.verb() + " task " + request.taskId(),
        tx -> applyIn(tx, transition, request, topics));
  }

  /** As {@link #apply}, in {@code tx}: the caller commits (or rolls back) it. */
  static Result applyIn(PacketTransaction tx, Transition transition, Request request, Topics topics)
      throws SQLException {
    if (transition == Transition.UPDATE) {
      throw new IllegalArgumentException("UPDATE is TaskUpdateStore's");
    }
    JdbcTransaction statements = tx.statements();
    Optional<LockedTask> row =
        statements.queryFirst(
            "SELECT state, version, trigger_type FROM ax_task WHERE task_id = ? FOR UPDATE",
            values(request.taskId()),
            rs ->
                new LockedTask(
                    rs.getString(1),
                    rs.getInt(2),
                    TriggerType.ONCE.name().equals(rs.getString(3))));
    Optional<TaskState> state = row.map(LockedTask::state).map(TaskState::valueOf);
    if (state.isEmpty()) {
      return new Result.Refused(transition.name() + " for unknown task " + request.taskId());
    }
    if (isRecorded(statements, request.taskId(), request.commandId())) {
      return new Result.Duplicate();
    }
    if (transition == Transition.RUN_NOW) {
      if (!transition.fromStates().contains(state.get())) {
        return new Result.Refused(
            "RUN_NOW of task "
                + request.taskId()
                + ", which is "
                + state.get()
                + (state.get() == TaskState.PAUSED ? " (resume it first)" : ""));
      }
      List<DueInstance> created =
          RunNowInstance.create(tx, request, row.get().version(), row.get().oneShot());
      if (!created.isEmpty()) {
        OneShotEnd.reactivate(statements, request.taskId(), request.nowMs());
      }
      record(statements, request, transition.name());
      return new Result.Applied(created.size(), created);
    }
    boolean interrupting = request.interrupt() && transition.toStatus() == CANCELLED;
    if (state.get() == transition.toState() && !interrupting) {
      return new Result.Refused(
          transition == Transition.RESUME
              ? "task " + request.taskId() + " is not paused"
              : "task " + request.taskId() + " is " + transition.verb() + " already");
    }
    if (!transition.fromStates().contains(state.get())
        && !(interrupting && state.get() == transition.toState())) {
      return new Result.Refused(
          transition.name()
              + " of task "
              + request.taskId()
              + ", which is "
              + state.get()
              + (state.get() == TaskState.ENDED ? " (its one-shot run is over)" : ""));
    }
    statements.update(
        "UPDATE ax_task SET state = ?, updated_at_ms = ? WHERE task_id = ?",
        values(transition.toState().name(), request.nowMs(), request.taskId()));
    Result.Applied applied = PendingInstances.move(tx, transition, request, interrupting, topics);
    if (transition == Transition.RESUME && applied.toAnnounce().isEmpty()) {
      // A one-shot task whose run ended while it was paused ends now: nothing of it is left.
      OneShotEnd.endIfDone(tx.connection(), List.of(request.taskId()), request.nowMs());
    }
    record(statements, request, transition.name());
    return applied;
  }

  /** The task's row as a command read it, locked: its state, version, and whether it is ONCE. */
  private record LockedTask(String state, int version, boolean oneShot) {}

  /**
   * Creates {@code instances} of paused tasks and holds them PAUSED, in one transaction, each with
   * its audit rows; an existing instance id creates nothing.
   *
   * @return how many were created
   */
  int createPaused(List<NewInstance> instances, String actor, long nowMs) {
    if (instances.isEmpty()) {
      return 0;
    }
    return jdbc.inPacketTransaction(
        "creating " + instances.size() + " instance(s) of paused tasks",
        tx -> {
          Map<String, Long> created = tx.create(instances, actor, nowMs);
          BatchMove<DueInstance> hold =
              PendingInstances.readingBack(SCHEDULED, PAUSED)
                  .set("owner = NULL")
                  .audit(actor, "triggered while its task is paused: waits for RESUME");
          tx.move("seq", List.copyOf(created.values()), hold, nowMs, false);
          return created.size();
        });
  }

  static boolean isRecorded(JdbcTransaction statements, String taskId, String commandId)
      throws SQLException {
    return statements
        .queryFirst(
            "SELECT 1 FROM ax_task_command WHERE task_id = ? AND command_id = ?",
            values(taskId, commandId),
            rs -> rs.getInt(1))
        .isPresent();
  }

  static void record(JdbcTransaction statements, Request request, String type) throws SQLException {
    statements.update(
        "INSERT INTO ax_task_command (command_id, task_id, command_type, reason, trace_id,"
            + " applied_by, applied_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)",
        values(
            request.commandId(),
            request.taskId(),
            type,
            request.reason() == null ? null : Sql.truncate(request.reason(), 512),
            request.traceId(),
            request.actor(),
            request.nowMs()));
  }
}
