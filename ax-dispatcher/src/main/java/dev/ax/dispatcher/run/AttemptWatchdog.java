package dev.ax.dispatcher.run;

import dev.ax.common.thread.DaemonThreads;
import dev.ax.common.time.SaturatingMillis;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The timers of an {@link AttemptRunner}'s attempts, on one timer thread. An attempt has one timer
 * at a time:
 *
 * <ul>
 *   <li>while it waits in its pool's queue, its <b>queue bound</b> ({@link #armQueueBound}): if it
 *       has not started when the bound passes, the timer takes its start ({@link Attempt#begin})
 *       and hands it to the runner, which gives it back unstarted;
 *   <li>once it runs, its <b>deadline</b> ({@link #armDeadline}), the task's timeout from the
 *       start: an attempt that nobody settled yet is settled here, its run interrupted ({@code
 *       Future.cancel(true)}) and handed to the runner as timed out.
 * </ul>
 *
 * An attempt settled first (by its worker or an interrupt) cancels its timer, so a finished attempt
 * holds no timer until its deadline.
 *
 * <p>Thread-safety: thread-safe; {@link #armQueueBound} runs on the submitting thread, {@link
 * #armDeadline} on the attempt's worker, the timers on the timer thread, which may be shared by
 * several runners ({@link Bulkheads}) and is then shut down by its owner, not here.
 *
 * @param timers made by {@link #newTimers()}: a cancelled timer is dropped at once
 * @param ownsTimers whether {@link #shutdown} stops {@code timers}
 */
record AttemptWatchdog(ScheduledExecutorService timers, boolean ownsTimers) {

  /** One timer thread for attempts' deadlines. */
  static ScheduledExecutorService newTimers() {
    ScheduledThreadPoolExecutor timers =
        new ScheduledThreadPoolExecutor(1, DaemonThreads.named("ax-dispatcher-watchdog"));
    // A finished attempt cancels its timer: drop it at once rather than keep it (and the task
    // it references) until its deadline.
    timers.setRemoveOnCancelPolicy(true);
    return timers;
  }

  /**
   * Sets {@code attempt}'s queue bound, {@code maxWait} from now: {@code waitedTooLong} gets the
   * attempt if it has not started by then (it then never starts).
   */
  void armQueueBound(Attempt attempt, Duration maxWait, Consumer<Attempt> waitedTooLong) {
    set(
        attempt,
        () -> {
          if (attempt.begin()) {
            waitedTooLong.accept(attempt);
          }
        },
        maxWait);
  }

  /**
   * Sets {@code attempt}'s deadline, its timeout from now (its start); {@code timedOut} gets the
   * attempt if the timer settles it. Its worker calls this, after {@link Attempt#run} is set.
   */
  void armDeadline(Attempt attempt, Consumer<Attempt> timedOut) {
    set(
        attempt,
        () -> {
          if (attempt.settle()) {
            attempt.run().get().cancel(true);
            timedOut.accept(attempt);
          }
        },
        attempt.timeout());
  }

  private void set(Attempt attempt, Runnable onTime, Duration delay) {
    // The scheduler clamps a delay of Long.MAX_VALUE itself (it never fires).
    attempt
        .timer()
        .set(timers.schedule(onTime, SaturatingMillis.toMillis(delay), TimeUnit.MILLISECONDS));
    // A quick run may have settled before its timer existed, so it could not cancel it: cancel
    // it here, or the timer (and the attempt it holds) stays queued until it is due. Either the
    // run saw the timer or this sees the run settled (both through volatile reads).
    if (attempt.settled().get()) {
      attempt.timer().get().cancel(false);
    }
  }

  /** Timers queued for attempts' deadlines; for tests. */
  int pendingTimers() {
    return ((ScheduledThreadPoolExecutor) timers).getQueue().size();
  }

  /** Stops the timer thread if this watchdog owns it. */
  void shutdown() {
    if (ownsTimers) {
      timers.shutdownNow();
    }
  }
}
