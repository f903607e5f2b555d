package dev.ax.ticker;

import dev.ax.common.store.InstanceStore.FireResult;
import dev.ax.common.store.StoredTask;
import dev.ax.ticker.fire.FirePlan;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * One batch the {@link TickLoop} has planned and handed to a marking thread: what it covers, and
 * the future of its fenced transaction and due events.
 *
 * <p><b>Threading.</b> Immutable apart from {@code done}, which a marking thread completes; the
 * tick loop's owner creates it and reads the outcome once {@code done} is done.
 *
 * @param epoch the lease epoch it was planned at; an owner leading at another epoch by the time it
 *     completes applies nothing of it to its wheel
 * @param nowMs the clock when it was planned
 * @param seqs the wheel keys it fires: back to the ready list if it fails
 * @param deferred keys it left for later because another firing in flight holds their
 *     non-concurrent task: back to the ready list once this firing is applied
 * @param nonConcurrent the non-concurrent tasks it holds while in flight
 * @param plan what its transaction applies (null when it has nothing to mark)
 * @param tasks the tasks of its rows, by task id
 * @param readMs how long reading its rows and tasks took
 * @param done completes when its transaction has committed and its due events are handed to the
 *     producer; fails with the transaction's {@link dev.ax.common.store.StoreException}
 */
record Firing(
    long epoch,
    long nowMs,
    List<Long> seqs,
    List<Long> deferred,
    Set<String> nonConcurrent,
    FirePlan plan,
    Map<String, StoredTask> tasks,
    long readMs,
    CompletableFuture<Marked> done) {

  /** What a marking thread reports: the transaction's result and how long each part took. */
  record Marked(FireResult result, long markMs, long emitMs) {}

  /** A firing with nothing to mark: every row it read was deferred. Already done. */
  static Firing deferredOnly(long epoch, long nowMs, List<Long> deferred) {
    return new Firing(
        epoch,
        nowMs,
        List.of(),
        deferred,
        Set.of(),
        null,
        Map.of(),
        0,
        CompletableFuture.completedFuture(null));
  }
}
