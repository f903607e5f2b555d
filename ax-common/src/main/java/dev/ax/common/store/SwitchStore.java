package dev.ax.common.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The emergency switches ({@code ax_switch}): a name, a value and a version that every change
 * increments, so each stage can tell a change it has not acted on yet. Thread-safe.
 */
public final class SwitchStore {

  /** One switch as stored. */
  public record Switch(
      String name, String value, long version, String updatedBy, long updatedAtMs) {}

  private final DataSource dataSource;

  public SwitchStore(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** Every switch that was ever set, by name. */
  public Map<String, Switch> all() {
    return Transactions.read(
        dataSource,
        "reading the switches",
        connection -> {
          Map<String, Switch> switches = new LinkedHashMap<>();
          try (PreparedStatement select =
                  connection.prepareStatement(
                      "SELECT switch_name, switch_value, version, updated_by, updated_at_ms"
                          + " FROM ax_switch ORDER BY switch_name");
              ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
              switches.put(
                  rs.getString(1),
                  new Switch(
                      rs.getString(1),
                      rs.getString(2),
                      rs.getLong(3),
                      rs.getString(4),
                      rs.getLong(5)));
            }
          }
          return switches;
        });
  }

  /**
   * Sets a switch, creating it at version 1 or incrementing its version.
   *
   * @return whether the value changed
   */
  public boolean set(String name, String value, String actor, long nowMs) {
    return Transactions.inTransaction(
        dataSource,
        "setting switch " + name,
        connection -> {
          try (PreparedStatement upsert =
              connection.prepareStatement(
                  "INSERT INTO ax_switch (switch_name, switch_value, version, updated_by,"
                      + " updated_at_ms) VALUES (?, ?, 1, ?, ?) ON DUPLICATE KEY UPDATE"
                      + " version = IF(switch_value = VALUES(switch_value), version, version + 1),"
                      + " updated_by = IF(switch_value = VALUES(switch_value), updated_by,"
                      + " VALUES(updated_by)),"
                      + " updated_at_ms = IF(switch_value = VALUES(switch_value), updated_at_ms,"
                      + " VALUES(updated_at_ms)),"
                      + " switch_value = VALUES(switch_value)")) {
            upsert.setString(1, name);
            upsert.setString(2, value);
            upsert.setString(3, actor);
            upsert.setLong(4, nowMs);
            return upsert.executeUpdate() > 0;
          }
        });
  }
}
