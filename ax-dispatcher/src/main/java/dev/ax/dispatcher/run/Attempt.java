package dev.ax.dispatcher.run;

import dev.ax.common.store.ClaimedInstance;
import dev.ax.common.store.StoredTask;
import dev.ax.common.time.SaturatingMillis;
import dev.ax.common.trace.TraceLog;
import dev.ax.dispatcher.executor.AttemptContext;
import dev.ax.dispatcher.store.RunKey;
import dev.ax.spi.TaskExecutor;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One attempt submitted to an {@link AttemptRunner}: what it runs, and what its worker, its
 * watchdog ({@link AttemptWatchdog}) and an interrupt share to decide which of them settles it
 * ({@code settled}: the first to set it records the attempt, or for an interrupt drops it; the
 * others do nothing).
 *
 * <p>Thread-safety: made on the submitting thread; afterwards its atomics are the only state the
 * threads share, so any of them may call its methods.
 */
record Attempt(
    ClaimedInstance claimed,
    StoredTask task,
    TaskExecutor executor,
    AttemptContext context,
    Duration timeout,
    AtomicBoolean settled,
    AtomicReference<Long> startedAtMs,
    AtomicReference<ScheduledFuture<?>> timer,
    AtomicReference<Future<?>> run) {

  /** The attempt of {@code claimed}, its deadline the task's timeout from {@code nowMs}. */
  static Attempt of(ClaimedInstance claimed, StoredTask task, TaskExecutor executor, long nowMs) {
    Duration timeout = task.spec().timeout();
    // Saturating: a stored timeout of centuries is a deadline at the far-future bound, not a
    // DateTimeException that would leave the claimed attempt unstarted.
    Instant deadline = Instant.ofEpochMilli(SaturatingMillis.atMs(nowMs, timeout));
    AttemptContext context =
        new AttemptContext(
            task.spec(),
            claimed.instanceId(),
            claimed.attempt(),
            Instant.ofEpochMilli(claimed.dueAtMs()),
            claimed.traceId(),
            task.traceId(),
            deadline);
    return new Attempt(
        claimed,
        task,
        executor,
        context,
        timeout,
        new AtomicBoolean(),
        new AtomicReference<>(),
        new AtomicReference<>(),
        new AtomicReference<>());
  }

  RunKey key() {
    return new RunKey(claimed.instanceId(), claimed.attempt());
  }

  /** Settles this attempt: true for the one caller that does it first, false for all others. */
  boolean settle() {
    return settled.compareAndSet(false, true);
  }

  /** Cancels the deadline's timer, if it is set yet. */
  void cancelTimer() {
    ScheduledFuture<?> t = timer.get();
    if (t != null) {
      t.cancel(false);
    }
  }

  String timedOut() {
    return "timed out after " + SaturatingMillis.toMillis(timeout) + " ms";
  }

  /** The trace fields of the log lines about this attempt, for the thread that logs them. */
  TraceLog traceLog() {
    return TraceLog.ofRun(
        claimed.traceId(), claimed.taskId(), claimed.instanceId(), task.traceId());
  }
}
