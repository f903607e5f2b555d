package dev.ax.bench.peer;

import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Recorder;

/**
 * What the peer's executions of one round did: start lateness (start minus the execution time the
 * row carried), executions that started before it, and executions of an instance that had already
 * run. Thread-safe: db-scheduler's executor threads call {@link #started} concurrently; the round's
 * thread takes the {@link #outcome} once at the end.
 */
final class PeerRecorder {

  private final Clock clock;
  private final Recorder lateness = new Recorder(3);
  private final Set<String> seen = ConcurrentHashMap.newKeySet();
  private final AtomicLong early = new AtomicLong();
  private final AtomicLong duplicates = new AtomicLong();
  private final AtomicLong lastStartMs = new AtomicLong();
  private final CountDownLatch unstarted;

  /** A recorder for a round of {@code tasks} instances. */
  PeerRecorder(Clock clock, int tasks) {
    this.clock = clock;
    this.unstarted = new CountDownLatch(tasks);
  }

  /** Records that the execution of {@code instanceId}, due at {@code dueAtMs}, starts now. */
  void started(String instanceId, long dueAtMs) {
    long nowMs = clock.millis();
    long lateMs = nowMs - dueAtMs;
    if (lateMs < 0) {
      early.incrementAndGet();
    }
    if (!seen.add(instanceId)) {
      duplicates.incrementAndGet();
      return;
    }
    lateness.recordValue(Math.max(0, lateMs));
    lastStartMs.accumulateAndGet(nowMs, Math::max);
    unstarted.countDown();
  }

  /** Waits until every instance of the round started or {@code timeout} passed. */
  boolean awaitAll(Duration timeout) throws InterruptedException {
    return unstarted.await(Math.max(0, timeout.toMillis()), TimeUnit.MILLISECONDS);
  }

  /**
   * The round's result (call once, at the end: it takes the lateness histogram).
   *
   * @param firstDueAtMs the round's first due time: completions per second count from there to the
   *     last distinct start
   * @param cpuMs the peer JVM's CPU time over the round
   */
  PeerOutcome outcome(String runId, int tasks, long firstDueAtMs, long cpuMs) {
    int completed = seen.size();
    double dueWindowSeconds = Math.max(1, lastStartMs.get() - firstDueAtMs) / 1000.0;
    return new PeerOutcome(
        runId,
        tasks,
        completed,
        early.get(),
        duplicates.get(),
        lateness.getIntervalHistogram(),
        completed / dueWindowSeconds,
        cpuMs);
  }
}
