package dev.ax.ticker.reaper;

import dev.ax.common.store.LeaseFence;
import dev.ax.common.thread.DaemonThreads;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs {@link Retention} on a thread of its own, {@code ax-ticker-retention}, so that deleting a
 * backlog never delays the ticker's window load or reaper. On the leader only (one node deletes, so
 * two never fight over rows): while behind, it runs batch after batch, paced by {@link
 * RetentionPace}; once a cycle finds nothing more to delete it waits the pace's {@code idle} (the
 * reaper interval) and starts the next. A standby checks its role every {@code idle}. Time spent in
 * batches is counted in {@code ax.retention.busy.seconds}. Does nothing when {@code AX_RETENTION}
 * is 0.
 *
 * <p>Thread-safety: {@link #start} and {@link #close} from the stage's owner; everything else runs
 * on the retention thread. {@link #close} wakes a pause at once, and waits at most {@link
 * #CLOSE_WAIT} for a batch in flight (one short transaction) to end; past that the batch is left to
 * finish or fail on its own (the thread is a daemon, and a batch is atomic).
 */
public final class RetentionThread implements AutoCloseable {

  /** Longest {@link #close} waits for a batch in flight. */
  static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

  private static final Logger log = LoggerFactory.getLogger(RetentionThread.class);

  private final Retention retention;
  private final RetentionPace pace;
  private final Supplier<Optional<LeaseFence>> leadership;
  private final LongSupplier nanos;
  private final Counter busySeconds;
  private final CountDownLatch closed = new CountDownLatch(1);
  private final Thread thread;

  /**
   * @param leadership this node's lease fence when it leads: retention works on the leader only
   * @param nanos the monotonic time the busy seconds are measured with ({@code System::nanoTime})
   */
  public RetentionThread(
      Retention retention,
      RetentionPace pace,
      Supplier<Optional<LeaseFence>> leadership,
      LongSupplier nanos,
      MeterRegistry meters) {
    this.retention = retention;
    this.pace = pace;
    this.leadership = leadership;
    this.nanos = nanos;
    this.busySeconds =
        Counter.builder("ax.retention.busy.seconds")
            .description("time the retention thread spent in database work")
            .register(meters);
    this.thread = DaemonThreads.thread("ax-ticker-retention", this::run);
  }

  /** Starts the thread, unless retention is off. */
  public RetentionThread start() {
    if (retention.enabled()) {
      thread.start();
    }
    return this;
  }

  private void run() {
    while (!isClosed()) {
      Duration pause;
      if (leadership.get().isEmpty()) {
        retention.standBy();
        pause = pace.idle();
      } else {
        long startNanos = nanos.getAsLong();
        Retention.Step step = retention.step();
        Duration busy = Duration.ofNanos(nanos.getAsLong() - startNanos);
        busySeconds.increment(busy.toNanos() / 1e9);
        pause = step.caughtUp() ? pace.idle() : pace.pauseAfter(step.rows(), busy);
      }
      if (!pause.isZero() && awaitClose(pause)) {
        return;
      }
    }
  }

  private boolean isClosed() {
    return closed.getCount() == 0;
  }

  /** Pauses for {@code pause}; true when closed meanwhile. */
  private boolean awaitClose(Duration pause) {
    try {
      return closed.await(pause.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return true;
    }
  }

  /** Stops the thread: at once when it pauses, within {@link #CLOSE_WAIT} when in a batch. */
  @Override
  public void close() {
    closed.countDown();
    if (thread.isAlive()) {
      DaemonThreads.awaitEnd(thread, CLOSE_WAIT);
      if (thread.isAlive()) {
        log.warn("Retention's batch in flight outlasted {}: left to end on its own", CLOSE_WAIT);
      }
    }
  }

  /** Whether the thread runs (for tests). */
  boolean running() {
    return thread.isAlive();
  }
}
