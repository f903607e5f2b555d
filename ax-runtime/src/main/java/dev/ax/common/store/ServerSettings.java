package dev.ax.common.store;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Checks the database server's settings that decide how AX's stages get along, and says what to
 * change where one holds them up. Today one: {@code innodb_autoinc_lock_mode}.
 *
 * <p>Every state change of every stage writes its audit rows with {@code INSERT INTO
 * ax_instance_log ... SELECT} (in the same packet as the UPDATE it audits). With the lock mode 0 or
 * 1 (MariaDB's default is 1) such a statement holds a table-level AUTO-INC lock on {@code
 * ax_instance_log} until it ends, so the audit writes of all stages (the ticker's firing, every
 * dispatcher's claims and outcomes, ingest's creates) queue behind one another: when the holder's
 * thread is descheduled on a busy server every stage stops for as long. With 2 ("interleaved",
 * MySQL 8's default) they only share a short mutex. AX reads its audit and instance ids back rather
 * than computing them, so the gaps that mode 2 may leave between the ids of one statement do not
 * matter to it; it is unsafe only for statement-based binary-log replication.
 *
 * <p>Stateless; thread-safe.
 */
public final class ServerSettings {

  static final String AUTOINC_LOCK_MODE = "SELECT @@innodb_autoinc_lock_mode";

  private ServerSettings() {}

  /**
   * What an operator should change on the server {@code dataSource} connects to, or empty when
   * nothing (or the setting cannot be read: a server without InnoDB's variable says nothing).
   */
  public static Optional<String> advice(DataSource dataSource) {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(AUTOINC_LOCK_MODE)) {
      return rows.next() ? adviceForAutoincLockMode(rows.getInt(1)) : Optional.empty();
    } catch (SQLException e) {
      return Optional.empty();
    }
  }

  /** The advice for {@code innodb_autoinc_lock_mode} = {@code mode}. */
  static Optional<String> adviceForAutoincLockMode(int mode) {
    if (mode == 2) {
      return Optional.empty();
    }
    return Optional.of(
        "the database runs with innodb_autoinc_lock_mode="
            + mode
            + ": every stage's audit writes (INSERT ... SELECT into ax_instance_log) take a"
            + " table-level lock and wait for each other, which stalls all stages together under"
            + " load; set innodb_autoinc_lock_mode=2 (MySQL 8's default; see"
            + " docs/CONFIGURATION.md)");
  }
}
