package dev.ax.common.store;

import static dev.ax.common.store.Jdbc.Binder.values;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Leader leases in {@code ax_leader_lease}, computed entirely on the database clock: a lease is
 * taken when it is free or expired ({@code lease_until_ms < NOW}), and every acquisition bumps the
 * fencing epoch, so an older holder (even one with the same name, restarted) is fenced off. Renewal
 * succeeds only for the current holder at the current epoch (even past expiry, while nobody took
 * the lease over: see {@link #renew}). Thread-safe.
 */
public final class LeaseStore {

  /** The database's now in epoch milliseconds, evaluated by the server. */
  static final String DB_NOW_MS = "CAST(ROUND(UNIX_TIMESTAMP(NOW(3)) * 1000) AS SIGNED)";

  /** A lease as held. */
  public record Lease(String leaseName, String holder, long epoch, long leaseUntilMs) {}

  private static final String SELECT_LEASE =
      "SELECT holder, epoch, lease_until_ms FROM ax_leader_lease WHERE lease_name = ?";

  private final Jdbc jdbc;

  public LeaseStore(DataSource dataSource) {
    this.jdbc = new Jdbc(dataSource);
  }

  /**
   * Takes the lease if it is free or expired (or already ours, from an earlier incarnation).
   *
   * @return the lease with its new epoch, or empty when someone else holds it
   */
  public Optional<Lease> tryAcquire(String leaseName, String holder, Duration leaseDuration) {
    return updateAndRead(
        "acquiring lease " + leaseName,
        leaseName,
        "UPDATE ax_leader_lease SET holder = ?, epoch = epoch + 1, lease_until_ms = "
            + DB_NOW_MS
            + " + ?, heartbeat_at_ms = "
            + DB_NOW_MS
            + " WHERE lease_name = ? AND (holder IS NULL OR holder = ? OR lease_until_ms < "
            + DB_NOW_MS
            + ")",
        values(holder, leaseDuration.toMillis(), leaseName, holder));
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
    return updateAndRead(
        "renewing lease " + lease.leaseName(),
        lease.leaseName(),
        "UPDATE ax_leader_lease SET lease_until_ms = "
            + DB_NOW_MS
            + " + ?, heartbeat_at_ms = "
            + DB_NOW_MS
            + " WHERE lease_name = ? AND holder = ? AND epoch = ?",
        values(leaseDuration.toMillis(), lease.leaseName(), lease.holder(), lease.epoch()));
  }

  /**
   * Runs {@code update} on the lease and, when it changed the row, reads the lease back in the same
   * transaction: the epoch and expiry the database gave it.
   */
  private Optional<Lease> updateAndRead(
      String what, String leaseName, String update, Jdbc.Binder binder) {
    return jdbc.inTransaction(
        what, tx -> tx.update(update, binder) == 0 ? Optional.<Lease>empty() : read(tx, leaseName));
  }

  /** Gives the lease up (on shutdown), so a standby need not wait for it to expire. */
  public boolean release(Lease lease) {
    return jdbc.inTransaction(
        "releasing lease " + lease.leaseName(),
        tx ->
            tx.update(
                    "UPDATE ax_leader_lease SET lease_until_ms = 0"
                        + " WHERE lease_name = ? AND holder = ? AND epoch = ?",
                    values(lease.leaseName(), lease.holder(), lease.epoch()))
                == 1);
  }

  /** The lease row as it is now (for operators and tests). */
  public Optional<Lease> current(String leaseName) {
    return jdbc.read("reading lease " + leaseName, tx -> read(tx, leaseName));
  }

  /**
   * The newest epoch the lease has had, held or released since: no fenced write was ever made at a
   * newer one. -1 before anyone took it.
   */
  public long newestEpoch(String leaseName) {
    return jdbc.queryFirst(
            "reading the epoch of lease " + leaseName,
            "SELECT epoch FROM ax_leader_lease WHERE lease_name = ?",
            values(leaseName),
            rs -> rs.getLong(1))
        .orElse(-1L);
  }

  /** The lease as held, or empty when there is no row or nobody holds it. */
  private static Optional<Lease> read(JdbcTransaction tx, String leaseName) throws SQLException {
    return tx.queryFirst(SELECT_LEASE, values(leaseName), rs -> toLease(leaseName, rs))
        .filter(lease -> lease.holder() != null);
  }

  private static Lease toLease(String leaseName, ResultSet rs) throws SQLException {
    return new Lease(leaseName, rs.getString(1), rs.getLong(2), rs.getLong(3));
  }
}
