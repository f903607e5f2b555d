package dev.ax.common.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Leader leases in {@code ax_leader_lease}, computed entirely on the database clock: a lease is
 * taken when it is free or expired ({@code lease_until_ms < NOW}), and every acquisition bumps the
 * fencing epoch, so an older holder (even one with the same name, restarted) is fenced off. Renewal
 * succeeds only for the current holder at the current epoch before expiry. Thread-safe.
 */
public final class LeaseStore {

  /** The database's now in epoch milliseconds, evaluated by the server. */
  static final String DB_NOW_MS = "CAST(ROUND(UNIX_TIMESTAMP(NOW(3)) * 1000) AS SIGNED)";

  /** A lease as held. */
  public record Lease(String leaseName, String holder, long epoch, long leaseUntilMs) {}

  private final DataSource dataSource;

  public LeaseStore(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /**
   * Takes the lease if it is free or expired (or already ours, from an earlier incarnation).
   *
   * @return the lease with its new epoch, or empty when someone else holds it
   */
  public Optional<Lease> tryAcquire(String leaseName, String holder, Duration leaseDuration) {
    return Transactions.inTransaction(
        dataSource,
        "acquiring lease " + leaseName,
        connection -> {
          try (PreparedStatement update =
              connection.prepareStatement(
                  "UPDATE ax_leader_lease SET holder = ?, epoch = epoch + 1, lease_until_ms = "
                      + DB_NOW_MS
                      + " + ?, heartbeat_at_ms = "
                      + DB_NOW_MS
                      + " WHERE lease_name = ? AND (holder IS NULL OR holder = ? OR lease_until_ms < "
                      + DB_NOW_MS
                      + ")")) {
            update.setString(1, holder);
            update.setLong(2, leaseDuration.toMillis());
            update.setString(3, leaseName);
            update.setString(4, holder);
            if (update.executeUpdate() == 0) {
              return Optional.<Lease>empty();
            }
          }
          return read(connection, leaseName);
        });
  }

  /**
   * Extends the lease if {@code lease} is still the current one: the same holder at the same epoch,
   * expired or not. An expired lease nobody took (the database was away longer than the lease) is
   * still this holder's to renew: no other node acted at a later epoch, and the holder itself
   * stopped acting at its local deadline.
   *
   * @return the renewed lease, or empty when it was lost (stop acting as leader at once)
   */
  public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
    return Transactions.inTransaction(
        dataSource,
        "renewing lease " + lease.leaseName(),
        connection -> {
          try (PreparedStatement update =
              connection.prepareStatement(
                  "UPDATE ax_leader_lease SET lease_until_ms = "
                      + DB_NOW_MS
                      + " + ?, heartbeat_at_ms = "
                      + DB_NOW_MS
                      + " WHERE lease_name = ? AND holder = ? AND epoch = ?")) {
            update.setLong(1, leaseDuration.toMillis());
            update.setString(2, lease.leaseName());
            update.setString(3, lease.holder());
            update.setLong(4, lease.epoch());
            if (update.executeUpdate() == 0) {
              return Optional.<Lease>empty();
            }
          }
          return read(connection, lease.leaseName());
        });
  }

  /** Gives the lease up (on shutdown), so a standby need not wait for it to expire. */
  public boolean release(Lease lease) {
    return Transactions.inTransaction(
        dataSource,
        "releasing lease " + lease.leaseName(),
        connection -> {
          try (PreparedStatement update =
              connection.prepareStatement(
                  "UPDATE ax_leader_lease SET lease_until_ms = 0"
                      + " WHERE lease_name = ? AND holder = ? AND epoch = ?")) {
            update.setString(1, lease.leaseName());
            update.setString(2, lease.holder());
            update.setLong(3, lease.epoch());
            return update.executeUpdate() == 1;
          }
        });
  }

  /** The lease row as it is now (for operators and tests). */
  public Optional<Lease> current(String leaseName) {
    return Transactions.read(dataSource, "reading lease " + leaseName, c -> read(c, leaseName));
  }

  /**
   * The newest epoch the lease has had, held or released since: no fenced write was ever made at a
   * newer one. -1 before anyone took it.
   */
  public long newestEpoch(String leaseName) {
    return Transactions.read(
        dataSource,
        "reading the epoch of lease " + leaseName,
        c -> {
          try (PreparedStatement select =
              c.prepareStatement("SELECT epoch FROM ax_leader_lease WHERE lease_name = ?")) {
            select.setString(1, leaseName);
            try (ResultSet rs = select.executeQuery()) {
              return rs.next() ? rs.getLong(1) : -1L;
            }
          }
        });
  }

  private static Optional<Lease> read(java.sql.Connection connection, String leaseName)
      throws java.sql.SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT holder, epoch, lease_until_ms FROM ax_leader_lease WHERE lease_name = ?")) {
      select.setString(1, leaseName);
      try (ResultSet rs = select.executeQuery()) {
        if (!rs.next() || rs.getString(1) == null) {
          return Optional.empty();
        }
        return Optional.of(new Lease(leaseName, rs.getString(1), rs.getLong(2), rs.getLong(3)));
      }
    }
  }
}
