package dev.ax.retry;

import dev.ax.common.store.DueInstance;
import dev.ax.retry.RetryStore.PendingRetry;
import java.util.Collection;
import java.util.List;

/**
 * Everything the retry stage's loop and intake do against the database, the broker and the
 * switches, behind one small interface: the stage wires the real one ({@link StoreRetryPort}); unit
 * tests use an in-memory one. Implementations must be safe to call from any thread.
 */
interface RetryPort {

  /** RETRYING rows whose next attempt is due before {@code untilMs}, soonest first. */
  List<PendingRetry> pendingRetries(long untilMs, int limit);

  /**
   * Moves the RETRYING rows among {@code seqs} whose backoff is over to DISPATCHED (those of a
   * paused or stopped task go PAUSED or CANCELLED instead), in one transaction.
   *
   * @return the rows dispatched
   * @throws dev.ax.common.store.StoreException when the database fails: nothing moved
   */
  List<DueInstance> dispatch(Collection<Long> seqs, long nowMs);

  /** Emits a dispatched retry on {@code ax.task.due.retry}; a failed send is logged, not thrown. */
  void emitDue(DueInstance instance, long nowMs);

  /** Retried attempts DISPATCHED or RUNNING. */
  long countRetriesInFlight();

  /** Whether the {@code retries} switch is on. */
  boolean retriesEnabled();
}
