package dev.ax.ticker.backlog;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.Jdbc;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import javax.sql.DataSource;

/**
 * The backlog's SQL: active instances per status, the oldest due time among those due and not
 * started, and the outbox's rows. Each read goes through the {@code (status, due_at_ms, seq)} index
 * over active statuses only (never the finished rows, which grow with history), or over the outbox,
 * which holds only events in flight. Counts stop at {@link #COUNT_CAP}: a count reads at most that
 * many index entries, so a backlog of ten million SCHEDULED one-shot tasks costs a gauge pass no
 * more than one of a hundred thousand; a count at the cap means "at least" that many. Thread-safe
 * (stateless over a pool).
 */
public final class BacklogStore {

  /** The statuses an instance waits or runs in: what the backlog counts. */
  static final List<InstanceStatus> ACTIVE =
      List.of(
          InstanceStatus.SCHEDULED,
          InstanceStatus.DISPATCHED,
          InstanceStatus.RUNNING,
          InstanceStatus.RETRYING,
          InstanceStatus.PAUSED);

  private static final String INDEX = "ax_instance_status_due";

  /** The most a count reads: a count equal to it means at least this many. */
  public static final int COUNT_CAP = 100_000;

  /** Instances in one status, up to the cap, by an index range. */
  static final String COUNT_STATUS_CAPPED =
      "SELECT COUNT(*) FROM (SELECT 1 FROM ax_instance FORCE INDEX ("
          + INDEX
          + ") WHERE status = ? LIMIT ?) capped";

  /**
   * The oldest due time among SCHEDULED rows due by a time and DISPATCHED rows. A firing held by
   * its task's buffering overlap policy (owner {@code ax-held}) waits by design and is left out;
   * the first SCHEDULED row in index order that is not held is the one, so the read walks past the
   * held ones only.
   */
  static final String OLDEST_DUE_NOT_STARTED =
      "SELECT COALESCE(LEAST("
          + "COALESCE((SELECT due_at_ms FROM ax_instance FORCE INDEX ("
          + INDEX
          + ") WHERE status = 'SCHEDULED' AND due_at_ms <= ?"
          + " AND (owner IS NULL OR owner <> 'ax-held') ORDER BY due_at_ms LIMIT 1), "
          + Long.MAX_VALUE
          + "), COALESCE((SELECT MIN(due_at_ms) FROM ax_instance FORCE INDEX ("
          + INDEX
          + ") WHERE status = 'DISPATCHED'), "
          + Long.MAX_VALUE
          + ")), "
          + Long.MAX_VALUE
          + ")";

  /** The outbox's rows, up to the cap. */
  static final String OUTBOX_CAPPED =
      "SELECT COUNT(*) FROM (SELECT 1 FROM ax_outbox LIMIT ?) capped";

  private final Jdbc jdbc;
  private final int countCap;

  public BacklogStore(DataSource dataSource) {
    this(dataSource, COUNT_CAP);
  }

  /** With counts stopping at {@code countCap}: for tests. */
  BacklogStore(DataSource dataSource, int countCap) {
    this.jdbc = new Jdbc(dataSource);
    this.countCap = countCap;
  }

  /**
   * Active instances per status (every active status present, zero when none), each up to {@link
   * #COUNT_CAP}.
   */
  Map<InstanceStatus, Long> countByStatus() {
    Map<InstanceStatus, Long> counts = new EnumMap<>(InstanceStatus.class);
    for (InstanceStatus status : ACTIVE) {
      counts.put(
          status,
          jdbc.queryLong(
              "counting the " + status + " backlog",
              COUNT_STATUS_CAPPED,
              Jdbc.Binder.values(status.name(), countCap)));
    }
    return counts;
  }

  /**
   * The earliest due time of an instance due by {@code nowMs} and not started: SCHEDULED (not yet
   * fired) or DISPATCHED (fired, not yet claimed). Empty when there is none.
   */
  OptionalLong oldestDueNotStartedMs(long nowMs) {
    long oldest =
        jdbc.queryLong(
            "reading the oldest due instance not started",
            OLDEST_DUE_NOT_STARTED,
            Jdbc.Binder.values(nowMs));
    return oldest == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(oldest);
  }

  /** Events written to the outbox and not yet confirmed sent, up to {@link #COUNT_CAP}. */
  long outboxRows() {
    return jdbc.queryLong("counting the outbox", OUTBOX_CAPPED, Jdbc.Binder.values(countCap));
  }
}
