package dev.ax.dispatcher;

import dev.ax.common.store.ClaimedInstance;
import dev.ax.common.time.SaturatingMillis;
import dev.ax.dispatcher.store.ClaimStore;
import dev.ax.dispatcher.store.RunKey;
import java.time.Duration;
import java.util.Collection;
import java.util.List;

/**
 * This node's run leases in the {@link ClaimStore}: every claim and every renewal is made as {@code
 * owner} and holds the run until {@code lease} after it. The one place the claim loop's port and
 * the {@link LeaseRenewer} get the owner and the lease's end from, so the two cannot disagree.
 *
 * <p>Thread-safe (the store is stateless over a pool).
 *
 * @param lease how long a claim or a renewal holds a run ({@code AX_DISPATCHER_LEASE})
 */
record RunLeases(ClaimStore store, String owner, Duration lease) {

  /** Claims the DISPATCHED instances among {@code instanceIds}; returns those this node won. */
  List<ClaimedInstance> claim(Collection<String> instanceIds, long nowMs) {
    return store.claim(instanceIds, owner, SaturatingMillis.atMs(nowMs, lease), nowMs);
  }

  /** Extends the leases of {@code runs} still held by this node; returns how many it extended. */
  int renew(Collection<RunKey> runs, long nowMs) {
    return store.renewLeases(runs, owner, SaturatingMillis.atMs(nowMs, lease), nowMs);
  }

  /** Gives back claims of this node that never started; returns the instance ids given back. */
  List<String> releaseUnstarted(Collection<ClaimedInstance> unstarted, long nowMs) {
    return store.releaseUnstarted(unstarted, owner, nowMs);
  }

  /** Those of {@code runs} whose instance was cancelled meanwhile (to interrupt). */
  List<RunKey> cancelledAmong(Collection<RunKey> runs) {
    return store.cancelledAmong(runs);
  }
}
