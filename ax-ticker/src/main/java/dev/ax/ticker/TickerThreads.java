package dev.ax.ticker;

import dev.ax.common.thread.DaemonThreads;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ticker's two scheduler threads: {@value #LOAD_THREAD} runs the window load and nothing else;
 * {@value #CHORES_THREAD} runs the periodic chores (reaper, chain repair, backlog gauges, outbox
 * resend, adoption of a predecessor's dispatches). A chore that outlasts its interval, or blocks on
 * a slow database, delays the other chores only: the window load, which keeps the wheel fed, runs
 * at its own interval whatever the chores do.
 *
 * <p>Each job runs with a fixed delay between the end of one run and the start of the next, so a
 * slow run never piles up runs behind it. A job that throws is logged and runs again at its next
 * interval (a bare {@link ScheduledExecutorService} would silently cancel it).
 *
 * <p>Thread-safe: jobs may be scheduled from any thread; {@link #close} and {@link #halt} may be
 * called more than once.
 */
final class TickerThreads implements AutoCloseable {

  static final String LOAD_THREAD = "ax-ticker-load";
  static final String CHORES_THREAD = "ax-ticker-chores";

  /** How long {@link #close} lets a running job finish before interrupting it. */
  static final Duration STOP_GRACE = Duration.ofSeconds(5);

  private static final Logger log = LoggerFactory.getLogger(TickerThreads.class);

  private final ScheduledExecutorService load = DaemonThreads.scheduler(LOAD_THREAD);
  private final ScheduledExecutorService chores = DaemonThreads.scheduler(CHORES_THREAD);

  /** Runs the window load now, then {@code interval} after the end of each run. */
  void loadEvery(Runnable windowLoad, Duration interval) {
    load.scheduleWithFixedDelay(
        guarded("window load", windowLoad), 0, interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Runs one window load as soon as the load thread is free (e.g. on becoming leader). */
  void loadNow(Runnable windowLoad) {
    submit(load, guarded("window load", windowLoad));
  }

  /** Runs a chore after {@code first}, then {@code interval} after the end of each run. */
  void choreEvery(String name, Runnable chore, Duration first, Duration interval) {
    chores.scheduleWithFixedDelay(
        guarded(name, chore), first.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Runs a chore once, as soon as the chores' thread is free.
   *
   * @return false if refused because the threads are closed
   */
  boolean choreNow(String name, Runnable chore) {
    return submit(chores, guarded(name, chore));
  }

  /**
   * Stops scheduling, lets the running jobs finish for up to {@link #STOP_GRACE} (together), then
   * interrupts what still runs and waits for it as long again.
   */
  @Override
  public void close() {
    load.shutdown();
    chores.shutdown();
    long deadline = System.nanoTime() + STOP_GRACE.toNanos();
    for (ScheduledExecutorService executor : new ScheduledExecutorService[] {load, chores}) {
      try {
        long leftNs = deadline - System.nanoTime();
        if (!executor.awaitTermination(Math.max(0, leftNs), TimeUnit.NANOSECONDS)) {
          log.warn("A ticker job outlasted the stop grace of {} ms: interrupted", STOP_GRACE);
          DaemonThreads.stop(executor, STOP_GRACE);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        DaemonThreads.stop(executor, Duration.ZERO);
      }
    }
  }

  /** Interrupts both threads at once, as a crash would stop them; waits for neither. */
  void halt() {
    load.shutdownNow();
    chores.shutdownNow();
  }

  private static boolean submit(ScheduledExecutorService executor, Runnable job) {
    try {
      executor.execute(job);
      return true;
    } catch (RejectedExecutionException stopping) {
      return false; // closed meanwhile: the job is not needed any more
    }
  }

  private static Runnable guarded(String name, Runnable job) {
    return () -> {
      try {
        job.run();
      } catch (RuntimeException e) {
        log.error("Ticker job '{}' failed; it runs again at its next interval", name, e);
      }
    };
  }
}
