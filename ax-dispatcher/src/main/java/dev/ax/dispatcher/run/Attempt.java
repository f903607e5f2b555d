package dev.ax.dispatcher.run;

import dev.ax.common.store.StoredTask;
import dev.ax.common.time.SaturatingMillis;
import dev.ax.common.trace.TraceLog;
import dev.ax.dispatcher.executor.AttemptContext;
import dev.ax.dispatcher.store.ClaimedInstance;
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
 * <p>Its deadline counts from its start, not from its claim: an attempt that waits in its pool's
 * queue behind long runs has its whole timeout once it starts. Until then {@code context} is null.
 * {@code began} decides, once, between the worker that starts it and its queue bound that gives it
 * back unstarted ({@link #begin}).
 *
 * <p>Thread-safety: made on the submitting thread; afterwards its atomics are the only state the
 * threads share, so any of them may call its methods.
 */
record Attempt(
    ClaimedInstance claimed,
    StoredTask task,
    TaskExecutor executor,
    Duration timeout,
    AtomicBoolean began,
    AtomicBoolean settled,
    AtomicReference<Long> startedAtMs,
    AtomicReference<AttemptContext> startedContext,
    AtomicReference<ScheduledFuture<?>> timer,
    AtomicReference<Future<?>> run) {

  /** The attempt of {@code claimed}, not started yet. */
  static Attempt of(ClaimedInstance claimed, StoredTask task, TaskExecutor executor) {
    return new Attempt(
        claimed,
        task,
        executor,
        task.spec().timeout(),
        new AtomicBoolean(),
        new AtomicBoolean(),
        new AtomicReference<>(),
        new AtomicReference<>(),
        new AtomicReference<>(),
        new AtomicReference<>());
  }

  /**
   * Takes the one start of this attempt: true for the first caller, either its worker (which then
   * runs it) or its queue bound (which then gives it back unstarted); false for the other.
   */
  boolean begin() {
    return began.compareAndSet(false, true);
  }

  /** Marks the run started at {@code nowMs}: its deadline is the task's timeout from now. */
  void start(long nowMs) {
    // Saturating: a stored timeout of centuries is a deadline at the far-future bound, not a
    // DateTimeException that would leave the claimed attempt unstarted.
    Instant deadline = Instant.ofEpochMilli(SaturatingMillis.atMs(nowMs, timeout));
    startedAtMs.set(nowMs);
    startedContext.set(
        new AttemptContext(
            task.spec(),
            claimed.instanceId(),
            claimed.attempt(),
            Instant.ofEpochMilli(claimed.dueAtMs()),
            claimed.traceId(),
            task.traceId(),
            deadline,
            claimed.shardIndex(),
            claimed.shardTotal()));
  }

  /** What the executor sees of this attempt; null until it started. */
  AttemptContext context() {
    return startedContext.get();
  }

  RunKey key() {
    return new RunKey(claimed.instanceId(), claimed.attempt());
  }

  /** Settles this attempt: true for the one caller that does it first, false for all others. */
  boolean settle() {
    return settled.compareAndSet(false, true);
  }

  /** Cancels the timer set now (its queue bound, or its deadline once it started), if any. */
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
