package dev.ax.retry;

import dev.ax.common.store.DueInstance;
import dev.ax.common.store.StoreException;
import dev.ax.retry.RetryStore.PendingRetry;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link RetryPort} over a map of RETRYING rows by seq: a dispatch moves those whose next attempt
 * is due (as the conditional UPDATE does) and records them as emitted. Single-threaded tests only.
 */
final class InMemoryRetryPort implements RetryPort {

  /** RETRYING rows by seq. */
  final Map<Long, PendingRetry> retrying = new LinkedHashMap<>();

  /** Seqs emitted on the due-retry topic, in order. */
  final List<Long> emitted = new ArrayList<>();

  /** Every batch asked to move, as asked. */
  final List<List<Long>> dispatchCalls = new ArrayList<>();

  long inFlight;
  int inFlightCounts;
  boolean retriesEnabled = true;
  boolean failDispatch;

  /** Adds a RETRYING row of {@code taskId} due at {@code atMs}; returns its seq. */
  long retrying(long seq, String taskId, long atMs) {
    retrying.put(seq, new PendingRetry(seq, taskId, atMs));
    return seq;
  }

  @Override
  public List<PendingRetry> pendingRetries(long untilMs, int limit) {
    return retrying.values().stream()
        .filter(r -> r.nextAttemptAtMs() < untilMs)
        .limit(limit)
        .toList();
  }

  @Override
  public List<DueInstance> dispatch(Collection<Long> seqs, long nowMs) {
    dispatchCalls.add(List.copyOf(seqs));
    if (failDispatch) {
      throw new StoreException("database away", null);
    }
    List<DueInstance> moved = new ArrayList<>();
    for (Long seq : seqs) {
      PendingRetry row = retrying.get(seq);
      if (row != null && row.nextAttemptAtMs() <= nowMs) {
        retrying.remove(seq);
        moved.add(
            new DueInstance(
                row.taskId() + "@" + seq,
                row.taskId(),
                row.nextAttemptAtMs(),
                "t",
                seq,
                1,
                1,
                0,
                null));
      }
    }
    return moved;
  }

  @Override
  public void emitDue(DueInstance instance, long nowMs) {
    emitted.add(instance.seq());
  }

  @Override
  public long countRetriesInFlight() {
    inFlightCounts++;
    return inFlight;
  }

  @Override
  public boolean retriesEnabled() {
    return retriesEnabled;
  }
}
