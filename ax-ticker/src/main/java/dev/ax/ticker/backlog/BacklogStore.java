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
 * started, and the outbox's rows. Each read goes through the {@code (status, due_at_ms)} index over
 * active statuses only (never the finished rows, which grow with history), or over the outbox,
 * which holds only events in flight. Thread-safe (stateless over a pool).
 */
final class BacklogStore {

  /** The statuses an instance waits or runs in: what the backlog counts. */
  static final List<InstanceStatus> ACTIVE =
      List.of(
          InstanceStatus.SCHEDULED,
          InstanceStatus.DISPATCHED,
          InstanceStatus.RUNNING,
          InstanceStatus.RETRYING,
          InstanceStatus.PAUSED);

  private static final String INDEX = "ax_instance_status_due";

  private final Jdbc jdbc;

  BacklogStore(DataSource dataSource) {
    this.jdbc = new Jdbc(dataSource);
  }

  /** Active instances per status (every active status present, zero when none). */
  Map<InstanceStatus, Long> countByStatus() {
    Map<InstanceStatus, Long> counts = new EnumMap<>(InstanceStatus.class);
    ACTIVE.forEach(s -> counts.put(s, 0L));
    for (Map.Entry<InstanceStatus, Long> row :
        jdbc.query(
            "counting the backlog",
            "SELECT status, COUNT(*) FROM ax_instance FORCE INDEX ("
                + INDEX
                + ") WHERE status IN (?, ?, ?, ?, ?) GROUP BY status",
            Jdbc.Binder.values(ACTIVE.stream().map(Enum::name).toArray()),
            rs -> Map.entry(InstanceStatus.valueOf(rs.getString(1)), rs.getLong(2)))) {
      counts.put(row.getKey(), row.getValue());
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
            "SELECT COALESCE(LEAST("
                + "COALESCE((SELECT MIN(due_at_ms) FROM ax_instance FORCE INDEX ("
                + INDEX
                + ") WHERE status = 'SCHEDULED' AND due_at_ms <= ?), "
                + Long.MAX_VALUE
                + "), COALESCE((SELECT MIN(due_at_ms) FROM ax_instance FORCE INDEX ("
                + INDEX
                + ") WHERE status = 'DISPATCHED'), "
                + Long.MAX_VALUE
                + ")), "
                + Long.MAX_VALUE
                + ")",
            Jdbc.Binder.values(nowMs));
    return oldest == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(oldest);
  }

  /** Events written to the outbox and not yet confirmed sent. */
  long outboxRows() {
    return jdbc.queryLong(
        "counting the outbox", "SELECT COUNT(*) FROM ax_outbox", Jdbc.Binder.values());
  }
}
