package dev.ax.deadletter;

import static dev.ax.common.store.Jdbc.Binder.values;

import dev.ax.common.model.DeadLetterState;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.StatusTransitions;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.JdbcTransaction;
import dev.ax.common.store.OneShotEnd;
import dev.ax.common.store.RecordRows;
import dev.ax.common.store.Sql;
import dev.ax.common.store.TaskGate;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Dead letters ({@code ax_dead_letter}), the dead-letter stage's own table: one per DEAD instance,
 * with the task as it was, every attempt and the last stack trace; and the operator's actions on
 * them ({@code ax dlq}). A replay moves the instance DEAD → DISPATCHED with a fresh retry budget
 * and marks the letter REPLAYED in one transaction, both conditional, so replaying one letter twice
 * runs it once; the task's state, read under its lock in that transaction, may hold the instance
 * PAUSED or refuse the replay ({@link #replay(long, String, String, long, boolean)}). Thread-safe
 * (stateless over a pool).
 */
public final class DeadLetterStore {

  /** A stored dead letter. */
  public record DeadLetter(
      long id,
      String instanceId,
      String taskId,
      String group,
      String taskSnapshot,
      String attemptsJson,
      String lastError,
      String lastStack,
      DeadLetterState state,
      String stateReason,
      long createdAtMs,
      long updatedAtMs) {}

  /** What {@link #list} returns: any field null means "any". */
  public record Filter(
      String taskId,
      String group,
      Long fromMs,
      Long toMs,
      DeadLetterState state,
      dev.ax.common.model.Namespace namespace) {

    /** A filter over every namespace (stored ids). */
    public Filter(String taskId, String group, Long fromMs, Long toMs, DeadLetterState state) {
      this(taskId, group, fromMs, toMs, state, null);
    }
  }

  /** How a replay ended. */
  public enum ReplayResult {
    /** The instance is DISPATCHED again, to be emitted on {@code ax.task.due.retry}. */
    REPLAYED,
    /**
     * Replayed, but its task is PAUSED: the instance waits PAUSED and runs once the task is resumed
     * (as any instance of a paused task). Nothing to emit now.
     */
    REPLAYED_PAUSED,
    NOT_FOUND,
    /** Replayed or discarded before: nothing runs again. */
    NOT_OPEN,
    /** The letter is open but its instance is no longer DEAD (changed by hand): nothing runs. */
    INSTANCE_NOT_DEAD,
    /**
     * Refused: its task is CANCELLED or DELETED (or gone), and the replay was not forced. The
     * letter stays OPEN and nothing runs.
     */
    TASK_STOPPED;

    /** True when the letter is REPLAYED now (whether its instance runs now or at a RESUME). */
    public boolean replayed() {
      return this == REPLAYED || this == REPLAYED_PAUSED;
    }
  }

  private static final int MAX_ERROR_LENGTH = 2048;
  private static final int MAX_REASON_LENGTH = 512;

  /** The columns of a {@link DeadLetter}, in the order of its components. */
  private static final String COLUMNS =
      "id, instance_id, task_id, task_group, task_snapshot, attempts_json, last_error, last_stack,"
          + " state, state_reason, created_at_ms, updated_at_ms";

  private static final RecordRows<DeadLetter> LETTERS = RecordRows.of(DeadLetter.class);

  /**
   * A replayed instance is one-shot as its task is now ({@link OneShotEnd}: an UPDATE may have
   * changed the trigger since it died); read from the task row the replay's gate holds, so it adds
   * no lock.
   */
  private static final String ONE_SHOT_AS_ITS_TASK =
      " one_shot = COALESCE((SELECT t.trigger_type = 'ONCE' FROM ax_task t"
          + " WHERE t.task_id = ax_instance.task_id), one_shot),";

  private final Jdbc jdbc;

  public DeadLetterStore(DataSource dataSource) {
    this.jdbc = new Jdbc(dataSource);
  }

  /**
   * Stores the letter of a DEAD instance: a new row, or, when the instance's letter was REPLAYED
   * and the instance is DEAD again, that letter reopened with the new content (one letter per
   * instance, and a replay can always be replayed again). An OPEN or DISCARDED letter is left as it
   * is, and so is a REPLAYED one whose instance is not DEAD now (an old event, delivered again).
   *
   * @return whether a letter was stored or reopened now
   */
  public boolean store(DeadLetter letter) {
    return jdbc.inTransaction(
        "storing the dead letter of " + letter.instanceId(),
        tx -> {
          Optional<Object[]> existing =
              tx.queryFirst(
                  "SELECT id, state FROM ax_dead_letter WHERE instance_id = ? FOR UPDATE",
                  values(letter.instanceId()),
                  rs -> new Object[] {rs.getLong(1), rs.getString(2)});
          if (existing.isEmpty()) {
            return insert(tx, letter);
          }
          if (!DeadLetterState.REPLAYED.name().equals(existing.get()[1])
              || !instanceIsDead(tx, letter.instanceId())) {
            return false;
          }
          return tx.update(
                  "UPDATE ax_dead_letter SET state = "
                      + Sql.literals(DeadLetterState.OPEN)
                      + ", task_snapshot = ?, attempts_json = ?,"
                      + " last_error = ?, last_stack = ?, state_reason = ?, updated_at_ms = ?"
                      + " WHERE id = ? AND state = "
                      + Sql.literals(DeadLetterState.REPLAYED),
                  values(
                      letter.taskSnapshot(),
                      letter.attemptsJson(),
                      Sql.truncate(letter.lastError(), MAX_ERROR_LENGTH),
                      letter.lastStack(),
                      Sql.truncate(
                          "dead again after a replay: " + letter.stateReason(), MAX_REASON_LENGTH),
                      letter.createdAtMs(),
                      existing.get()[0]))
              == 1;
        });
  }

  private static boolean insert(JdbcTransaction tx, DeadLetter letter) throws SQLException {
    return tx.update(
            "INSERT INTO ax_dead_letter (instance_id, task_id, task_group, task_snapshot,"
                + " attempts_json, last_error, last_stack, state, state_reason,"
                + " created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, "
                + Sql.literals(DeadLetterState.OPEN)
                + ", ?, ?, ?)"
                + " ON DUPLICATE KEY UPDATE id = id",
            values(
                letter.instanceId(),
                letter.taskId(),
                letter.group(),
                letter.taskSnapshot(),
                letter.attemptsJson(),
                Sql.truncate(letter.lastError(), MAX_ERROR_LENGTH),
                letter.lastStack(),
                Sql.truncate(letter.stateReason(), MAX_REASON_LENGTH),
                letter.createdAtMs(),
                letter.createdAtMs()))
        == 1;
  }

  private static boolean instanceIsDead(JdbcTransaction tx, String instanceId) throws SQLException {
    return tx.queryFirst(
            "SELECT status FROM ax_instance WHERE instance_id = ?",
            values(instanceId),
            rs -> rs.getString(1))
        .filter(InstanceStatus.DEAD.name()::equals)
        .isPresent();
  }

  public Optional<DeadLetter> find(long id) {
    return jdbc.queryFirst(
        "reading dead letter " + id,
        "SELECT " + COLUMNS + " FROM ax_dead_letter WHERE id = ?",
        values(id),
        LETTERS);
  }

  /** Letters matching {@code filter}, newest first, at most {@code limit}. */
  public List<DeadLetter> list(Filter filter, int limit) {
    StringBuilder where = new StringBuilder(" WHERE 1 = 1");
    List<Object> bound = new ArrayList<>();
    condition(where, bound, " AND task_id = ?", filter.taskId());
    if (filter.namespace() != null && filter.namespace().isDefault()) {
      where.append(" AND task_id NOT LIKE '%~%'"); // stored ids of other namespaces hold a ~
    } else if (filter.namespace() != null) {
      condition(where, bound, " AND task_id LIKE ?", filter.namespace().qualify("%"));
    }
    condition(where, bound, " AND task_group = ?", filter.group());
    condition(where, bound, " AND created_at_ms >= ?", filter.fromMs());
    condition(where, bound, " AND created_at_ms < ?", filter.toMs());
    condition(
        where, bound, " AND state = ?", filter.state() == null ? null : filter.state().name());
    bound.add(limit);
    return jdbc.query(
        "listing dead letters",
        "SELECT "
            + COLUMNS
            + " FROM ax_dead_letter"
            + where
            + " ORDER BY created_at_ms DESC, id DESC LIMIT ?",
        values(bound.toArray()),
        LETTERS);
  }

  private static void condition(StringBuilder where, List<Object> bound, String sql, Object value) {
    if (value != null) {
      where.append(sql);
      bound.add(value);
    }
  }

  /** {@link #replay(long, String, String, long, boolean)}, not forced. */
  public ReplayResult replay(long id, String actor, String reason, long nowMs) {
    return replay(id, actor, reason, nowMs, false);
  }

  /**
   * OPEN → REPLAYED, and its instance DEAD → DISPATCHED with a fresh retry budget (attempts made so
   * far no longer count, nor do its runs taken back so far), audited, in one transaction. The
   * caller then emits the instance on {@code ax.task.due.retry}; if that emit is lost the reaper
   * emits it again.
   *
   * <p>The task's state decides, read in the same transaction under the task's shared lock ({@link
   * TaskGate}, taken after the letter's and before the instance's), so a lifecycle command that
   * committed before is never overtaken:
   *
   * <ul>
   *   <li>ACTIVE: replayed as above.
   *   <li>ENDED (a one-shot task whose run was over): replayed as above, and the task ACTIVE again
   *       ({@link OneShotEnd#reactivate}).
   *   <li>PAUSED: replayed, the instance DEAD → PAUSED: a RESUME fires it, as any instance held by
   *       the PAUSE ({@link ReplayResult#REPLAYED_PAUSED}). Forcing changes nothing here.
   *   <li>CANCELLED, DELETED, or no task row: refused ({@link ReplayResult#TASK_STOPPED}), the
   *       letter left OPEN; with {@code force}, replayed as for ACTIVE, the audit row saying so.
   * </ul>
   *
   * @param force replay even when the task is CANCELLED or DELETED
   */
  public ReplayResult replay(long id, String actor, String reason, long nowMs, boolean force) {
    StatusTransitions.require(InstanceStatus.DEAD, InstanceStatus.DISPATCHED);
    StatusTransitions.require(InstanceStatus.DEAD, InstanceStatus.PAUSED);
    return jdbc.inTransaction(
        "replaying dead letter " + id,
        tx -> {
          Optional<DeadLetter> letter =
              tx.queryFirst(
                  "SELECT " + COLUMNS + " FROM ax_dead_letter WHERE id = ? FOR UPDATE",
                  values(id),
                  LETTERS);
          if (letter.isEmpty()) {
            return ReplayResult.NOT_FOUND;
          }
          if (letter.get().state() != DeadLetterState.OPEN) {
            return ReplayResult.NOT_OPEN;
          }
          String taskId = letter.get().taskId();
          Optional<TaskGate.Held> task = TaskGate.hold(tx, taskId);
          boolean paused = task.isPresent() && task.get().isPaused();
          boolean ended = task.isPresent() && task.get().isEnded();
          boolean stopped = task.isEmpty() || !(task.get().isActive() || paused || ended);
          if (stopped && !force) {
            return ReplayResult.TASK_STOPPED;
          }
          String instanceId = letter.get().instanceId();
          InstanceStatus to = paused ? InstanceStatus.PAUSED : InstanceStatus.DISPATCHED;
          int moved = revive(tx, instanceId, to, nowMs);
          if (moved == 0) {
            return ReplayResult.INSTANCE_NOT_DEAD;
          }
          setState(tx, id, DeadLetterState.REPLAYED, reason, nowMs);
          if (ended) {
            OneShotEnd.reactivate(tx, taskId, nowMs); // its run is live again
          }
          int attempt =
              tx.queryFirst(
                      "SELECT attempt FROM ax_instance WHERE instance_id = ?",
                      values(instanceId),
                      rs -> rs.getInt(1))
                  .orElse(0);
          String why = "dead letter " + id + " replayed: " + reason;
          if (paused) {
            why += "; its task is PAUSED: waits for RESUME";
          } else if (stopped) {
            why +=
                "; forced although its task is "
                    + task.map(held -> held.state().name()).orElse("gone");
          }
          tx.audit(
              instanceId,
              taskId,
              attempt,
              InstanceStatus.DEAD,
              to,
              Sql.truncate(why, MAX_REASON_LENGTH),
              actor,
              nowMs);
          return paused ? ReplayResult.REPLAYED_PAUSED : ReplayResult.REPLAYED;
        });
  }

  /**
   * DEAD → {@code to} (DISPATCHED, or PAUSED to wait for a RESUME) for a replay, with a fresh retry
   * budget; the number of rows moved (0 when the instance is no longer DEAD).
   */
  private static int revive(JdbcTransaction tx, String instanceId, InstanceStatus to, long nowMs)
      throws SQLException {
    boolean paused = to == InstanceStatus.PAUSED;
    // Held PAUSED, it is not dispatched: the ticker stamps that when a RESUME lets it fire.
    String dispatch =
        paused
            ? ""
            : " dispatched_at_ms = ?, epoch = COALESCE((SELECT l.epoch"
                + " FROM ax_leader_lease l WHERE l.lease_name = 'ticker'), 0),";
    List<Object> bound = new ArrayList<>(List.of(to.name()));
    if (!paused) {
      bound.add(nowMs);
    }
    bound.addAll(List.of(nowMs, instanceId, InstanceStatus.DEAD.name()));
    return tx.update(
        "UPDATE ax_instance SET status = ?, retry_base = attempt, taken_back = 0,"
            + " owner = NULL,"
            + ONE_SHOT_AS_ITS_TASK
            + dispatch
            + " next_attempt_at_ms = NULL, updated_at_ms = ?"
            + " WHERE instance_id = ? AND status = ?",
        values(bound.toArray()));
  }

  /**
   * The state of the task a refused replay stopped at, for the operator's message: CANCELLED,
   * DELETED, or empty when its row is gone.
   */
  public Optional<String> taskStateOf(long id) {
    return jdbc.queryFirst(
        "reading the task state of dead letter " + id,
        "SELECT t.state FROM ax_dead_letter d JOIN ax_task t ON t.task_id = d.task_id"
            + " WHERE d.id = ?",
        values(id),
        rs -> rs.getString(1));
  }

  /**
   * OPEN → DISCARDED with the operator's reason.
   *
   * @return false when there is no such open letter
   */
  public boolean discard(long id, String reason, long nowMs) {
    return jdbc.inTransaction(
        "discarding dead letter " + id,
        tx -> setState(tx, id, DeadLetterState.DISCARDED, reason, nowMs));
  }

  /** OPEN → {@code state}, checked against {@link DeadLetterState}'s table. */
  private static boolean setState(
      JdbcTransaction tx, long id, DeadLetterState state, String reason, long nowMs)
      throws SQLException {
    DeadLetterState.require(DeadLetterState.OPEN, state);
    return tx.update(
            "UPDATE ax_dead_letter SET state = ?, state_reason = ?, updated_at_ms = ?"
                + " WHERE id = ? AND state = "
                + Sql.literals(DeadLetterState.OPEN),
            values(state.name(), Sql.truncate(reason, MAX_REASON_LENGTH), nowMs, id))
        == 1;
  }

  /**
   * DEAD instances that have no dead letter yet (their dead-letter event was lost), oldest first.
   */
  public List<String> deadWithoutLetter(int limit) {
    return jdbc.query(
        "finding dead instances without a letter",
        "SELECT i.instance_id FROM ax_instance i LEFT JOIN ax_dead_letter d"
            + " ON d.instance_id = i.instance_id"
            + " WHERE i.status = ? AND (d.id IS NULL"
            + " OR (d.state = "
            + Sql.literals(DeadLetterState.REPLAYED)
            + " AND d.updated_at_ms < i.updated_at_ms))"
            + " ORDER BY i.updated_at_ms LIMIT ?",
        values(InstanceStatus.DEAD.name(), limit),
        rs -> rs.getString(1));
  }
}
