package dev.ax.common.store;

import static dev.ax.common.store.Jdbc.Binder.values;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The emergency switches ({@code ax_switch}): a name, a value and a version that every change
 * increments, so each stage can tell a change it has not acted on yet; and which stage has applied
 * which version ({@code ax_switch_applied}). Thread-safe.
 */
public final class SwitchStore {

  /** One switch as stored. */
  public record Switch(
      String name, String value, long version, String updatedBy, long updatedAtMs) {}

  /** That {@code stage} (stage name @ node id) applied {@code version} of a switch. */
  public record Applied(String name, String stage, long version, long appliedAtMs) {}

  private final Jdbc jdbc;

  public SwitchStore(DataSource dataSource) {
    this.jdbc = new Jdbc(dataSource);
  }

  /** Every switch that was ever set, by name. */
  public Map<String, Switch> all() {
    Map<String, Switch> switches = new LinkedHashMap<>();
    for (Switch row :
        jdbc.query(
            "reading the switches",
            "SELECT switch_name, switch_value, version, updated_by, updated_at_ms"
                + " FROM ax_switch ORDER BY switch_name",
            values(),
            rs ->
                new Switch(
                    rs.getString(1),
                    rs.getString(2),
                    rs.getLong(3),
                    rs.getString(4),
                    rs.getLong(5)))) {
      switches.put(row.name(), row);
    }
    return switches;
  }

  /**
   * Sets a switch, creating it at version 1 or incrementing its version.
   *
   * @return whether the value changed
   */
  public boolean set(String name, String value, String actor, long nowMs) {
    return jdbc.inTransaction(
        "setting switch " + name,
        tx ->
            tx.update(
                    "INSERT INTO ax_switch (switch_name, switch_value, version, updated_by,"
                        + " updated_at_ms) VALUES (?, ?, 1, ?, ?) ON DUPLICATE KEY UPDATE"
                        + " version = IF(switch_value = VALUES(switch_value), version, version + 1),"
                        + " updated_by = IF(switch_value = VALUES(switch_value), updated_by,"
                        + " VALUES(updated_by)),"
                        + " updated_at_ms = IF(switch_value = VALUES(switch_value), updated_at_ms,"
                        + " VALUES(updated_at_ms)),"
                        + " switch_value = VALUES(switch_value)",
                    values(name, value, actor, nowMs))
                > 0);
  }

  /** Records that {@code stage} now applies {@code version} of switch {@code name}. */
  public void recordApplied(String name, String stage, long version, long nowMs) {
    jdbc.inTransaction(
        "recording that " + stage + " applied switch " + name,
        tx ->
            tx.update(
                "INSERT INTO ax_switch_applied (switch_name, stage, version, applied_at_ms)"
                    + " VALUES (?, ?, ?, ?) ON DUPLICATE KEY UPDATE version = VALUES(version),"
                    + " applied_at_ms = VALUES(applied_at_ms)",
                values(name, stage, version, nowMs)));
  }

  /** Which stage applied which version of each switch, by switch name then stage. */
  public List<Applied> applied() {
    return jdbc.query(
        "reading which stages applied the switches",
        "SELECT switch_name, stage, version, applied_at_ms FROM ax_switch_applied"
            + " ORDER BY switch_name, stage",
        values(),
        rs -> new Applied(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getLong(4)));
  }
}
