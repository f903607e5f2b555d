package dev.ax.dispatcher.lease;

import dev.ax.common.time.SaturatingMillis;
import dev.ax.dispatcher.store.ClaimStore;
import dev.ax.dispatcher.store.ClaimStore.LeaseRenewal;
import dev.ax.dispatcher.store.ClaimedInstance;
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
public record RunLeases(ClaimStore store, String owner, Duration lease)
    implements LeaseRenewer.Leases {

  /** Claims the DISPATCHED instances among {@code instanceIds}; returns those this node won. */
  public List<ClaimedInstance> claim(Collection<String> instanceIds, long nowMs) {
    return store.claim(instanceIds, owner, SaturatingMillis.atMs(nowMs, lease), nowMs);
  }

  /** This node's claims, on another pool: the renewer's own, say. */
  public RunLeases on(ClaimStore other) {
    return new RunLeases(other, owner, lease);
  }

  /** Extends the leases of {@code runs} still held by this node; says which it no longer holds. */
  @Override
  public LeaseRenewal renew(Collection<RunKey> runs, long nowMs) {
    return store.renewLeases(runs, owner, SaturatingMillis.atMs(nowMs, lease), nowMs);
  }

  /** Gives back claims of this node that never started; returns the instance ids given back. */
  @Override
  public List<String> releaseUnstarted(Collection<ClaimedInstance> unstarted, long nowMs) {
    return store.releaseUnstarted(unstarted, owner, nowMs);
  }
}
