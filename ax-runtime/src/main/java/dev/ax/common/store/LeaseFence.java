package dev.ax.common.store;

/**
 * The condition a leader's write carries: "only while {@code holder} holds lease {@code leaseName}
 * at {@code epoch} and the lease has not expired on the database clock". A stale leader's write
 * matches no row. Immutable.
 */
public record LeaseFence(String leaseName, String holder, long epoch) {

  /** The ticker's lease. */
  public static final String TICKER = "ticker";

  /**
   * The fence as an SQL condition; binds {@link #leaseName}, {@link #holder} and {@link #epoch} in
   * that order.
   */
  public static final String CONDITION =
      "EXISTS (SELECT 1 FROM ax_leader_lease WHERE lease_name = ? AND holder = ? AND epoch = ?"
          + " AND lease_until_ms >= "
          + LeaseStore.DB_NOW_MS
          + ")";
}
