package dev.ax.ticker.reaper;

import static dev.ax.common.model.InstanceStatus.CANCELLED;
import static dev.ax.common.model.InstanceStatus.SKIPPED;
import static dev.ax.common.model.InstanceStatus.SUCCESS;
import static dev.ax.common.store.Jdbc.Binder.values;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TaskState;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.JdbcTransaction;
import dev.ax.common.store.Sql;
import dev.ax.common.store.SqlWork;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * The SQL of retention: one small batch per call, in its own short transaction, each an index range
 * that starts after the {@link Cursor} the previous batch of its kind ended at, so a batch never
 * scans from the start of a table (rows a batch must leave, such as a DEAD instance with an open
 * letter, are passed over once per cycle, not read again by every batch).
 *
 * <p>What goes, older than the cutoff:
 *
 * <ul>
 *   <li>finished instances, by the {@code (status, due_at_ms)} index, one range per status, with
 *       their audit rows and dead letters: SUCCESS, CANCELLED and SKIPPED ones, and DEAD ones whose
 *       dead letter was DISCARDED. A DEAD instance whose letter is open (or missing, for the
 *       dead-letter stage's sweep to find) is an operator's to handle and stays, as does any
 *       instance that can still move;
 *   <li>tasks in a terminal state (DELETED, or ENDED: a one-shot task whose instance ended) with no
 *       instance left, by {@code (state, updated_at_ms)}, with their applied commands, superseded
 *       versions and own dependency edges; a task that an edge names as its upstream stays as long
 *       as that edge (its downstream task's) does, so that its id is not taken by a new task whose
 *       successes would trigger the old downstream. A DELETED task takes no command; an ENDED one
 *       gets an instance again only through a RUN_NOW, an UPDATE or a replay, each of which makes
 *       it ACTIVE under the task's lock first, so the locking re-read of its state (below) leaves a
 *       task made ACTIVE meanwhile;
 *   <li>superseded task versions no instance uses any more, by {@code superseded_at_ms};
 *   <li>applied commands (their ids are kept for idempotency as long as the rest of the history)
 *       and operator log rows, by their time;
 *   <li>the switch records of stages long gone (one statement; the table holds a row per switch and
 *       stage).
 * </ul>
 *
 * <p>How a batch locks: the candidates are read without locks (a consistent read of the index
 * range), then locked by primary key with their conditions read again, and only the rows that still
 * meet them are deleted, in that transaction. A locking read of the range itself would take
 * next-key locks on the entry after it: on the {@code (status, due_at_ms)} index that is the first
 * row of the next status (DISPATCHED after DEAD, the hot end of the claim path), and on {@code
 * (state, updated_at_ms)} a live task, so retention would wait for a claim or an ingest
 * transaction, and every claim of that row would wait behind retention. A lookup by primary key
 * locks the rows it names and nothing else.
 *
 * <p>The outbox is not retention's: its relay deletes each row once the broker has it.
 *
 * <p>Thread-safe (stateless over a pool).
 */
public final class RetentionStore {

  /** Where a range batch ended: its last row's time, key and (for task versions) version. */
  record Cursor(long atMs, String key, int version) {
    static final Cursor START = new Cursor(Long.MIN_VALUE, "", Integer.MIN_VALUE);
  }

  /**
   * What one batch did.
   *
   * @param read candidates the batch read (a batch that read fewer than its limit reached the end
   *     of its range)
   * @param next where the next batch of the kind starts
   * @param deleted rows deleted, by kind
   */
  record Batch(int read, Cursor next, Map<RetentionKind, Integer> deleted) {
    int rows() {
      return deleted.values().stream().mapToInt(Integer::intValue).sum();
    }
  }

  private final Jdbc jdbc;

  public RetentionStore(DataSource dataSource) {
    this.jdbc = new Jdbc(dataSource);
  }

  /**
   * Up to {@code limit} instances of {@code status} due and last changed before {@code cutoffMs},
   * after {@code from} in {@code (due_at_ms, instance_id)} order, with their audit rows, run output
   * and dead letters; a DEAD one only if its letter was DISCARDED.
   */
  Batch deleteInstances(String status, long cutoffMs, Cursor from, int limit) {
    String select = RetentionSql.instancesSql(status);
    return cursorBatch(
        "deleting " + status + " instances older than " + cutoffMs,
        from,
        tx ->
            tx.query(
                select,
                values(status, cutoffMs, from.atMs(), from.atMs(), from.key(), cutoffMs, limit),
                rs ->
                    new Candidate(new Cursor(rs.getLong(2), rs.getString(1), 0), rs.getBoolean(3))),
        Candidate::row,
        (tx, candidates) -> {
          Set<String> still =
              lockedKeys(
                  tx,
                  candidates.stream().map(c -> c.row().key()).toList(),
                  placeholders -> RetentionSql.lockInstancesSql(status, placeholders),
                  List.of(status, cutoffMs, cutoffMs));
          return candidates.stream().filter(c -> still.contains(c.row().key())).toList();
        },
        (tx, candidates) -> {
          List<String> ids = sortedKeys(candidates.stream().map(Candidate::row).toList());
          // Most finished instances never had a letter: the IN list of 500 ids is not sent for
          // them.
          List<Cursor> lettered =
              candidates.stream().filter(Candidate::lettered).map(Candidate::row).toList();
          Map<RetentionKind, Integer> deleted = new EnumMap<>(RetentionKind.class);
          deleted.put(RetentionKind.AUDIT, deleteIn(tx, "ax_instance_log", "instance_id", ids));
          deleted.put(RetentionKind.RUN_OUTPUT, deleteIn(tx, "ax_run_output", "instance_id", ids));
          deleted.put(
              RetentionKind.DEAD_LETTERS,
              lettered.isEmpty()
                  ? 0
                  : deleteIn(tx, "ax_dead_letter", "instance_id", sortedKeys(lettered)));
          deleted.put(RetentionKind.INSTANCES, deleteIn(tx, "ax_instance", "instance_id", ids));
          return deleted;
        });
  }

  /** An instance retention is about to delete, and whether it has a dead letter. */
  private record Candidate(Cursor row, boolean lettered) {}

  /**
   * Up to {@code limit} tasks in terminal {@code state} last changed before {@code cutoffMs} with
   * no instance left, after {@code from} in {@code (updated_at_ms, task_id)} order, with their
   * commands, versions and own dependency edges.
   */
  Batch deleteTasks(String state, long cutoffMs, Cursor from, int limit) {
    String select = RetentionSql.tasksSql();
    return cursorBatch(
        "deleting " + state + " tasks older than " + cutoffMs,
        from,
        tx ->
            tx.query(
                select,
                values(state, cutoffMs, from.atMs(), from.atMs(), from.key(), limit),
                rs -> new Cursor(rs.getLong(2), rs.getString(1), 0)),
        row -> row,
        (tx, rows) -> {
          Set<String> still =
              lockedKeys(
                  tx,
                  rows.stream().map(Cursor::key).toList(),
                  RetentionSql::lockTasksSql,
                  List.of(state, cutoffMs));
          return rows.stream().filter(row -> still.contains(row.key())).toList();
        },
        (tx, rows) -> {
          List<String> ids = sortedKeys(rows);
          Map<RetentionKind, Integer> deleted = new EnumMap<>(RetentionKind.class);
          deleted.put(RetentionKind.COMMANDS, deleteIn(tx, "ax_task_command", "task_id", ids));
          deleted.put(
              RetentionKind.DEPENDENCIES, deleteIn(tx, "ax_task_dependency", "task_id", ids));
          deleted.put(RetentionKind.VERSIONS, deleteIn(tx, "ax_task_version", "task_id", ids));
          deleted.put(RetentionKind.TASKS, deleteIn(tx, "ax_task", "task_id", ids));
          return deleted;
        });
  }

  /**
   * Up to {@code limit} task versions superseded before {@code cutoffMs} that no instance runs,
   * after {@code from} in {@code (superseded_at_ms, task_id, version)} order. An instance fired
   * with a version runs that version's spec, so a version goes only after its instances.
   */
  Batch deleteSupersededVersions(long cutoffMs, Cursor from, int limit) {
    String select = RetentionSql.versionsSql();
    return cursorBatch(
        "deleting task versions superseded before " + cutoffMs,
        from,
        tx ->
            tx.query(
                select,
                values(
                    cutoffMs,
                    from.atMs(),
                    from.atMs(),
                    from.key(),
                    from.key(),
                    from.version(),
                    limit),
                rs -> new Cursor(rs.getLong(3), rs.getString(1), rs.getInt(2))),
        row -> row,
        (tx, rows) -> lockVersions(tx, rows, cutoffMs),
        (tx, rows) -> {
          int deleted = 0;
          for (List<Cursor> chunk : Sql.chunks(rows)) {
            VersionKeys keys = VersionKeys.of(chunk, "");
            deleted +=
                tx.update(
                    "DELETE FROM ax_task_version WHERE " + keys.where(),
                    values(keys.bound().toArray()));
          }
          return Map.of(RetentionKind.VERSIONS, deleted);
        });
  }

  /** Deletes the rows a batch read, with what goes with them: the rows deleted, by kind. */
  private interface BatchDeletion<R> {
    Map<RetentionKind, Integer> delete(JdbcTransaction tx, List<R> rows) throws SQLException;
  }

  /** Locks the candidates a batch read by primary key: those that still meet its conditions. */
  private interface BatchLock<R> {
    List<R> lock(JdbcTransaction tx, List<R> candidates) throws SQLException;
  }

  /**
   * One batch of a round that walks its range by cursor, in one transaction: the rows {@code read}
   * (without locks) finds after {@code from}, of them those {@code lock} still finds deletable,
   * deleted by {@code deletion}. The batch ends at the last row read ({@code cursorOf} it), or
   * where it started when there was none.
   */
  private <R> Batch cursorBatch(
      String what,
      Cursor from,
      SqlWork<JdbcTransaction, List<R>> read,
      Function<R, Cursor> cursorOf,
      BatchLock<R> lock,
      BatchDeletion<R> deletion) {
    return jdbc.inTransaction(
        what,
        tx -> {
          List<R> rows = read.run(tx);
          if (rows.isEmpty()) {
            return new Batch(0, from, Map.of());
          }
          List<R> deletable = lock.lock(tx, rows);
          return new Batch(
              rows.size(),
              cursorOf.apply(rows.get(rows.size() - 1)),
              deletable.isEmpty() ? Map.of() : deletion.delete(tx, deletable));
        });
  }

  /**
   * The {@code keys} that {@code sql} (given one chunk's placeholders, followed by {@code
   * trailing}) still returns, locked {@code FOR UPDATE} by primary key.
   */
  private static Set<String> lockedKeys(
      JdbcTransaction tx, List<String> keys, Function<String, String> sql, List<?> trailing)
      throws SQLException {
    return new HashSet<>(tx.queryIn(sortedCopy(keys), sql, trailing, rs -> rs.getString(1)));
  }

  /** The primary keys of some task versions, as a condition and the values it binds. */
  private record VersionKeys(String where, List<Object> bound) {
    static VersionKeys of(List<Cursor> rows, String alias) {
      List<Object> bound = new ArrayList<>();
      StringBuilder where = new StringBuilder();
      for (Cursor row : rows) {
        where
            .append(where.isEmpty() ? "" : " OR ")
            .append("(%1$stask_id = ? AND %1$sversion = ?)".formatted(alias));
        bound.add(row.key());
        bound.add(row.version());
      }
      return new VersionKeys(where.toString(), bound);
    }
  }

  /** The superseded versions among {@code rows} that are still unused, locked by primary key. */
  private static List<Cursor> lockVersions(JdbcTransaction tx, List<Cursor> rows, long cutoffMs)
      throws SQLException {
    Set<String> still = new HashSet<>();
    for (List<Cursor> chunk : Sql.chunks(rows)) {
      VersionKeys keys = VersionKeys.of(chunk, "v.");
      List<Object> bound = new ArrayList<>(keys.bound());
      bound.add(cutoffMs);
      still.addAll(
          tx.query(
              RetentionSql.lockVersionsSql(keys.where()),
              values(bound.toArray()),
              rs -> rs.getString(1) + "/" + rs.getInt(2)));
    }
    return rows.stream().filter(row -> still.contains(row.key() + "/" + row.version())).toList();
  }

  /**
   * Up to {@code limit} rows of {@code table} whose {@code timeColumn} is before {@code cutoffMs},
   * oldest first: every such row goes, so no cursor is needed (the range starts at the oldest row
   * left).
   */
  Batch deleteOlderRows(RetentionKind kind, long cutoffMs, int limit) {
    String table = kind == RetentionKind.OPERATOR_LOG ? "ax_operator_log" : "ax_task_command";
    int deleted =
        jdbc.inTransaction(
            "deleting " + table + " rows older than " + cutoffMs,
            tx -> tx.update(RetentionSql.olderRowsSql(kind), values(cutoffMs, limit)));
    return new Batch(deleted, Cursor.START, Map.of(kind, deleted));
  }

  /**
   * Deletes the records of stages that applied an older version of a switch than its current one
   * and did so before {@code cutoffMs}: stages long gone (a node id per deployment). A live stage
   * rewrites its record at each change, so it never has a superseded one that old. The table holds
   * a row per switch and stage: one statement.
   */
  Batch deleteSupersededSwitchRecords(long cutoffMs) {
    int deleted =
        jdbc.inTransaction(
            "deleting superseded switch records older than " + cutoffMs,
            tx ->
                tx.update(
                    "DELETE a FROM ax_switch_applied a JOIN ax_switch s"
                        + " ON s.switch_name = a.switch_name"
                        + " WHERE a.version < s.version AND a.applied_at_ms < ?",
                    values(cutoffMs)));
    return new Batch(0, Cursor.START, Map.of(RetentionKind.SWITCH_RECORDS, deleted));
  }

  /**
   * When the oldest row retention should already have deleted became deletable, if there is one:
   * the first finished instance of each status, the oldest operator log row and applied command,
   * the first terminal task with no instance left among the oldest {@link
   * RetentionSql#OLDEST_TASK_PROBE} of its state. Each is read from the start of an index range, at
   * a cost that does not grow with the backlog. DEAD instances are left out: which of them may go
   * depends on their letters.
   */
  Optional<Long> oldestDeletableMs(long cutoffMs) {
    return jdbc.read(
        "reading the oldest row retention is behind on",
        tx -> {
          List<Long> firsts = new ArrayList<>();
          for (InstanceStatus status : List.of(SUCCESS, CANCELLED, SKIPPED)) {
            tx.queryFirst(
                    RetentionSql.OLDEST_INSTANCE_SQL,
                    values(status.name(), cutoffMs, cutoffMs),
                    rs -> rs.getLong(1))
                .ifPresent(firsts::add);
          }
          for (TaskState state : Retention.REMOVABLE_TASK_STATES) {
            tx.queryFirst(
                    RetentionSql.OLDEST_TASK_SQL,
                    values(state.name(), cutoffMs),
                    rs -> rs.getLong(1))
                .ifPresent(firsts::add);
          }
          tx.queryFirst(RetentionSql.OLDEST_OPERATOR_LOG_SQL, values(cutoffMs), rs -> rs.getLong(1))
              .ifPresent(firsts::add);
          tx.queryFirst(RetentionSql.OLDEST_COMMAND_SQL, values(cutoffMs), rs -> rs.getLong(1))
              .ifPresent(firsts::add);
          return firsts.stream().min(Comparator.naturalOrder());
        });
  }

  private static List<String> sortedKeys(List<Cursor> rows) {
    return sortedCopy(rows.stream().map(Cursor::key).toList());
  }

  private static List<String> sortedCopy(List<String> keys) {
    // Locked and deleted in key order: the primary key's order, and one lock order for every batch.
    return keys.stream().sorted().toList();
  }

  private static int deleteIn(JdbcTransaction tx, String table, String keyColumn, List<String> ids)
      throws SQLException {
    int deleted = 0;
    for (List<?> chunk : Sql.chunks(new ArrayList<Object>(ids))) {
      deleted +=
          tx.update(
              RetentionSql.deleteInSql(table, keyColumn, Sql.placeholders(chunk.size())),
              values(chunk.toArray()));
    }
    return deleted;
  }
}
