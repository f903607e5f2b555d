package dev.ax.common.store;

import static dev.ax.common.store.Jdbc.Binder.values;

import dev.ax.common.contract.TaskSpecJson;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.OverlapPolicy;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.TaskState;
import dev.ax.common.schedule.BackfillRange;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * Backfills ({@code ax_backfill}, V27): requests to create the firings a CRON or FIXED_RATE task's
 * schedule would have made in a past range. Written by the API and the CLI ({@link #request},
 * {@link #cancel}), read by them and by the ticker leader, which creates the firings and moves each
 * row's cursor in its own transactions ({@code dev.ax.ticker.backfill}).
 *
 * <p>A backfill is RUNNING until every slot of its range is handled (DONE) or an operator, or the
 * end of its task, stops it (CANCELLED); both are final, each UPDATE conditional on RUNNING.
 *
 * <p>Bounded: a request is refused when its task has a RUNNING backfill already, or when {@link
 * #MAX_RUNNING} are RUNNING in all (that count is read, not locked: two requests at one moment may
 * pass it by one); a range holds at most {@link BackfillRange#MAX_FIRINGS} slots. Thread-safe
 * (stateless over a pool).
 */
public final class BackfillStore {

  /** Most backfills RUNNING at once, every task together. */
  public static final int MAX_RUNNING = 100;

  /** Where a backfill stands. RUNNING moves to DONE or CANCELLED, never back. */
  public enum State {
    RUNNING,
    DONE,
    CANCELLED
  }

  /**
   * One backfill as stored.
   *
   * @param cursorMs every slot up to here is handled; {@code fromMs - 1} before the first
   * @param created firings created, SKIPPED ones included
   * @param skipped firings created SKIPPED (overlap SKIP: a run of the task was in flight)
   * @param existing slots passed over: an instance of the slot existed (the schedule's own, or this
   *     or another backfill's)
   */
  public record Backfill(
      String backfillId,
      String taskId,
      long fromMs,
      long toMs,
      long gridOriginMs,
      OverlapPolicy overlap,
      long total,
      long cursorMs,
      long created,
      long skipped,
      long existing,
      State state,
      String reason,
      String endedReason,
      String requestedBy,
      long requestedAtMs,
      long updatedAtMs) {

    /** The range as it was checked. */
    public BackfillRange range() {
      return new BackfillRange(fromMs, toMs, overlap, total, gridOriginMs);
    }

    /** Slots handled so far: created or passed over. */
    public long handled() {
      return created + existing;
    }
  }

  /** The task a request names, as read under its lock: what {@link BackfillRange#check} needs. */
  public record TaskAtRequest(String taskId, TaskSpec spec, TaskState state, long gridOriginMs) {}

  /** What a request came to. */
  public sealed interface Requested {
    /** Stored, RUNNING. */
    record Accepted(Backfill backfill) implements Requested {}

    /** Not stored, and why; {@code unknownTask} when the task does not exist. */
    record Refused(String reason, boolean unknownTask) implements Requested {}
  }

  /** The columns {@link #read} reads, in its order. */
  public static final String COLUMNS =
      "backfill_id, task_id, from_ms, to_ms, grid_origin_ms, overlap, total, cursor_ms,"
          + " created_count, skipped_count, existing_count, state, reason, ended_reason,"
          + " requested_by, requested_at_ms, updated_at_ms";

  /** The RUNNING backfills, oldest request first: the ticker's pass, five times a second. */
  public static final String RUNNING_SQL =
      "SELECT "
          + COLUMNS
          + " FROM ax_backfill FORCE INDEX (ax_backfill_state) WHERE state = 'RUNNING'"
          + " ORDER BY requested_at_ms, backfill_id LIMIT ?";

  /** A task's RUNNING backfill, if any: a request's bound. */
  public static final String RUNNING_OF_TASK_SQL =
      "SELECT backfill_id FROM ax_backfill FORCE INDEX (ax_backfill_task)"
          + " WHERE task_id = ? AND state = 'RUNNING'";

  private final Jdbc jdbc;

  public BackfillStore(DataSource dataSource) {
    this.jdbc = new Jdbc(dataSource);
  }

  /**
   * Stores a RUNNING backfill of {@code taskId} if {@code check} accepts its range, in one
   * transaction that holds the task's row locked ({@code FOR UPDATE}: two requests for one task
   * take turns, so the one-running-backfill bound holds). A task CANCELLED, DELETED or ENDED is
   * refused; a PAUSED one is accepted (its firings wait for its RESUME).
   *
   * @param check the range's check against the task as read ({@link BackfillRange#check})
   */
  public Requested request(
      String backfillId,
      String taskId,
      String actor,
      String reason,
      long nowMs,
      Function<TaskAtRequest, BackfillRange.Outcome> check) {
    return jdbc.inTransaction(
        "requesting backfill " + backfillId + " of task " + taskId,
        tx -> {
          Optional<TaskAtRequest> task = lockTask(tx, taskId);
          if (task.isEmpty()) {
            return new Requested.Refused("no task " + taskId, true);
          }
          TaskState state = task.get().state();
          if (state != TaskState.ACTIVE && state != TaskState.PAUSED) {
            return new Requested.Refused(
                "task " + taskId + " is " + state + ": only an active or paused task is backfilled",
                false);
          }
          BackfillRange.Outcome outcome = check.apply(task.get());
          if (outcome instanceof BackfillRange.Refused refused) {
            return new Requested.Refused(refused.reason(), false);
          }
          Optional<String> running =
              tx.queryFirst(RUNNING_OF_TASK_SQL, values(taskId), rs -> rs.getString(1));
          if (running.isPresent()) {
            return new Requested.Refused(
                "task "
                    + taskId
                    + " has backfill "
                    + running.get()
                    + " running: wait for it or cancel it first",
                false);
          }
          if (countRunning(tx) >= MAX_RUNNING) {
            return new Requested.Refused(
                MAX_RUNNING + " backfills are running, the most AX runs at once: try again later",
                false);
          }
          BackfillRange range = ((BackfillRange.Accepted) outcome).range();
          tx.update(
              "INSERT INTO ax_backfill (backfill_id, task_id, from_ms, to_ms, grid_origin_ms,"
                  + " overlap, total, cursor_ms, state, reason, requested_by, requested_at_ms,"
                  + " updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'RUNNING', ?, ?, ?, ?)",
              values(
                  backfillId,
                  taskId,
                  range.fromMs(),
                  range.toMs(),
                  range.gridOriginMs(),
                  range.overlap().name(),
                  range.firings(),
                  range.fromMs() - 1,
                  reason == null ? null : Sql.truncate(reason, 512),
                  Sql.truncate(actor, 128),
                  nowMs,
                  nowMs));
          return new Requested.Accepted(find(tx, backfillId).orElseThrow());
        });
  }

  /**
   * The task's row locked, its spec and the origin of its slot grid: the slot of its next firing
   * (its SCHEDULED slot instance), else its acceptance. Any slot of a FIXED_RATE grid serves.
   */
  private static Optional<TaskAtRequest> lockTask(JdbcTransaction tx, String taskId)
      throws SQLException {
    Optional<TaskAtRequest> task =
        tx.queryFirst(
            "SELECT state, spec_json, created_at_ms FROM ax_task WHERE task_id = ? FOR UPDATE",
            values(taskId),
            rs ->
                new TaskAtRequest(
                    taskId,
                    TaskSpecJson.readStored(taskId, rs.getString(2)),
                    TaskState.valueOf(rs.getString(1)),
                    rs.getLong(3)));
    if (task.isEmpty()) {
      return task;
    }
    List<String> scheduled =
        tx.query(
            "SELECT instance_id FROM ax_instance FORCE INDEX (ax_instance_task_status)"
                + " WHERE task_id = ? AND status = ? LIMIT 10",
            values(taskId, InstanceStatus.SCHEDULED.name()),
            rs -> rs.getString(1));
    long origin =
        scheduled.stream()
            .filter(InstanceIds::isSlotId)
            .mapToLong(InstanceIds::slotOf)
            .findFirst()
            .orElse(task.get().gridOriginMs());
    TaskAtRequest found = task.get();
    return Optional.of(new TaskAtRequest(taskId, found.spec(), found.state(), origin));
  }

  private static long countRunning(JdbcTransaction tx) throws SQLException {
    return tx.queryFirst(
            "SELECT COUNT(*) FROM ax_backfill FORCE INDEX (ax_backfill_state)"
                + " WHERE state = 'RUNNING'",
            values(),
            rs -> rs.getLong(1))
        .orElse(0L);
  }

  /** The backfill of that id. */
  public Optional<Backfill> find(String backfillId) {
    return jdbc.read("reading backfill " + backfillId, tx -> find(tx, backfillId));
  }

  private static Optional<Backfill> find(JdbcTransaction tx, String backfillId)
      throws SQLException {
    return tx.queryFirst(
        "SELECT " + COLUMNS + " FROM ax_backfill WHERE backfill_id = ?",
        values(backfillId),
        BackfillStore::read);
  }

  /** The newest {@code limit} backfills of {@code taskId}, newest first. */
  public List<Backfill> ofTask(String taskId, int limit) {
    return jdbc.query(
        "reading the backfills of task " + taskId,
        "SELECT "
            + COLUMNS
            + " FROM ax_backfill FORCE INDEX (ax_backfill_task) WHERE task_id = ?"
            + " ORDER BY requested_at_ms DESC, backfill_id DESC LIMIT ?",
        values(taskId, limit),
        BackfillStore::read);
  }

  /** The RUNNING backfills, oldest request first, at most {@code limit}. */
  public List<Backfill> running(int limit) {
    return jdbc.query(
        "reading the running backfills", RUNNING_SQL, values(limit), BackfillStore::read);
  }

  /** A cancel's outcome: the backfill as it is now, and whether this cancel stopped it. */
  public record Cancel(Backfill backfill, boolean stopped) {}

  /**
   * Cancels a RUNNING backfill: it creates no more firings; those it created run (or wait) as any
   * instance of the task. The row as it is afterwards, CANCELLED by this call or as it was (DONE,
   * CANCELLED before); empty when there is no such backfill.
   */
  public Optional<Cancel> cancel(String backfillId, String actor, String reason, long nowMs) {
    return jdbc.inTransaction(
        "cancelling backfill " + backfillId,
        tx -> {
          int stopped =
              tx.update(
                  "UPDATE ax_backfill SET state = ?, ended_reason = ?, updated_at_ms = ?"
                      + " WHERE backfill_id = ? AND state = 'RUNNING'",
                  values(
                      State.CANCELLED.name(),
                      Sql.truncate(
                          "cancelled by " + actor + (reason == null ? "" : ": " + reason), 512),
                      nowMs,
                      backfillId));
          return find(tx, backfillId).map(b -> new Cancel(b, stopped > 0));
        });
  }

  /** One row of {@link #COLUMNS}. */
  public static Backfill read(ResultSet rs) throws SQLException {
    return new Backfill(
        rs.getString(1),
        rs.getString(2),
        rs.getLong(3),
        rs.getLong(4),
        rs.getLong(5),
        OverlapPolicy.valueOf(rs.getString(6)),
        rs.getLong(7),
        rs.getLong(8),
        rs.getLong(9),
        rs.getLong(10),
        rs.getLong(11),
        State.valueOf(rs.getString(12)),
        rs.getString(13),
        rs.getString(14),
        rs.getString(15),
        rs.getLong(16),
        rs.getLong(17));
  }
}
