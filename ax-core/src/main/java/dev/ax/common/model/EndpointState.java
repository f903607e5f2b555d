package dev.ax.common.model;

/**
 * An executor pool endpoint's state as an operator set it. Whether it is online is not a state but
 * a reading: its last heartbeat is younger than its pool's offline-after.
 */
public enum EndpointState {
  /** Gets new runs while online. */
  ACTIVE,
  /** Gets no new runs; runs it has keep going. Set by {@code ax pool drain}. */
  DRAINING
}
