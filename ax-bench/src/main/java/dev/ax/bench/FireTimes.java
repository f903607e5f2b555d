package dev.ax.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.HdrHistogram.Histogram;

/**
 * Where a bench run's lateness was spent, from the instance rows: how late the ticker marked each
 * instance DISPATCHED ({@code dispatched_at_ms - due_at_ms}), and when ingest stored the last one
 * (a pipeline still ingesting when the first task is due measures ingest, not firing). Immutable.
 *
 * @param fireLateness ms from due to DISPATCHED, one value per instance (negative values as 0)
 * @param earlyFires instances marked DISPATCHED before their due time less the ticker's emit-ahead
 * @param lastCreatedAtMs when the last instance of the run was stored, on the database clock
 */
public record FireTimes(Histogram fireLateness, long earlyFires, long lastCreatedAtMs) {

  private static final String SQL =
      "SELECT due_at_ms, dispatched_at_ms, created_at_ms FROM ax_instance WHERE instance_id LIKE ?";

  /**
   * @param instanceIdPrefix [a-z0-9-] only; matched with LIKE as a prefix
   * @param emitAheadMs the ticker's emit-ahead: marking an instance DISPATCHED up to this long
   *     before its due time is allowed (only its start must wait for the due time)
   * @throws SQLException when the database cannot be read
   */
  public static FireTimes read(DataSource dataSource, String instanceIdPrefix, long emitAheadMs)
      throws SQLException {
    Histogram histogram = new Histogram(3);
    long early = 0;
    long lastCreated = 0;
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(SQL)) {
      statement.setString(1, instanceIdPrefix + "%");
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          long dueAtMs = rs.getLong(1);
          long dispatchedAtMs = rs.getLong(2);
          boolean dispatched = !rs.wasNull();
          lastCreated = Math.max(lastCreated, rs.getLong(3));
          if (dispatched) {
            long lateMs = dispatchedAtMs - dueAtMs;
            if (lateMs < -emitAheadMs) {
              early++;
            }
            histogram.recordValue(Math.max(0, lateMs));
          }
        }
      }
    }
    return new FireTimes(histogram, early, lastCreated);
  }
}
