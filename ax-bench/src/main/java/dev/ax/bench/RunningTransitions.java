package dev.ax.bench;

import dev.ax.common.model.InstanceStatus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * How often the instances of a bench run moved to RUNNING, from the audit log ({@code
 * ax_instance_log}): each instance should have exactly one such row per attempt, and a bench run
 * makes one attempt each. More is a run started twice, whatever Kafka said. (A dispatcher stopped
 * past its grace releases claims it never started, which adds a claim without a start; a bench run
 * stops no dispatcher before its tasks have run.)
 *
 * @param total RUNNING transitions of the run's instances
 * @param instances instances with at least one
 * @param extra transitions beyond the first, summed over instances
 */
public record RunningTransitions(long total, long instances, long extra) {

  private static final String SQL =
      "SELECT COUNT(*), COUNT(DISTINCT instance_id) FROM ax_instance_log"
          + " WHERE to_status = ? AND instance_id LIKE ?";

  /**
   * @param instanceIdPrefix [a-z0-9-] only; matched with LIKE as a prefix
   * @throws SQLException when the database cannot be read
   */
  public static RunningTransitions count(DataSource dataSource, String instanceIdPrefix)
      throws SQLException {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(SQL)) {
      statement.setString(1, InstanceStatus.RUNNING.name());
      statement.setString(2, instanceIdPrefix + "%");
      try (ResultSet rs = statement.executeQuery()) {
        rs.next();
        long total = rs.getLong(1);
        long instances = rs.getLong(2);
        return new RunningTransitions(total, instances, total - instances);
      }
    }
  }
}
