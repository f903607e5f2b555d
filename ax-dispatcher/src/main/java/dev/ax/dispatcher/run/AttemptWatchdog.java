package dev.ax.dispatcher.run;

import dev.ax.common.time.SaturatingMillis;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The deadlines of an {@link AttemptRunner}'s attempts, on one timer thread: at its deadline an
 * attempt that nobody settled yet is settled here, its run interrupted ({@code
 * Future.cancel(true)}) and handed to the runner as timed out. An attempt settled first (by its
 * worker or an interrupt) cancels its timer, so a finished attempt holds no timer until its
 * deadline.
 *
 * <p>Thread-safety: thread-safe; {@link #arm} runs on the submitting thread, the timers on the
 * timer thread, which may be shared by several runners ({@link Bulkheads}) and is then shut down by
 * its owner, not here.
 *
 * @param timers made by {@link AttemptRunner#newWatchdog()}: a cancelled timer is dropped at once
 * @param ownsTimers whether {@link #shutdown} stops {@code timers}
 */
record AttemptWatchdog(ScheduledExecutorService timers, boolean ownsTimers) {

  /**
   * Sets {@code attempt}'s timer, for {@code run} submitted just before; {@code timedOut} gets the
   * attempt if the timer settles it.
   */
  void arm(Attempt attempt, Future<?> run, Consumer<Attempt> timedOut) {
    attempt
        .timer()
        .set(
            timers.schedule(
                () -> {
                  if (attempt.settle()) {
                    run.cancel(true);
                    timedOut.accept(attempt);
                  }
                },
                // The scheduler clamps a delay of Long.MAX_VALUE itself (it never fires).
                SaturatingMillis.toMillis(attempt.timeout()),
                TimeUnit.MILLISECONDS));
    // A quick run may have settled before its timer existed, so it could not cancel it: cancel
    // it here, or the timer (and the attempt it holds) stays queued until its deadline. Either
    // the run saw the timer or this sees the run settled (both through volatile reads).
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
