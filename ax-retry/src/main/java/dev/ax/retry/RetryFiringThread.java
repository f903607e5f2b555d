package dev.ax.retry;

import dev.ax.common.thread.DaemonThreads;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The owner thread of a {@link RetryLoop}, {@code ax-retry-fire}: waits up to {@link #IDLE_WAIT_MS}
 * for a handed-over retry, steps the loop, and waits as long as the step asks (after a failed
 * dispatch: a back-off while the database is away, not synchronisation).
 *
 * <p>An unexpected error in a step is logged and the loop goes on: only {@link #close()} ends it.
 * {@link #start()} and {@link #close()} are called by the stage's owner.
 */
final class RetryFiringThread implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RetryFiringThread.class);

  /** How long the owner waits for a hand-over before it steps anyway (due retries fire). */
  static final long IDLE_WAIT_MS = 10;

  private final RetryLoop loop;
  private final Thread owner = new Thread(this::run, "ax-retry-fire");
  private volatile boolean running = true;

  RetryFiringThread(RetryLoop loop) {
    this.loop = loop;
  }

  void start() {
    owner.start();
  }

  private void run() {
    while (running) {
      try {
        loop.await(IDLE_WAIT_MS);
        long waitMs = loop.step();
        if (waitMs > 0) {
          Thread.sleep(waitMs);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        log.error("Retry firing loop caught an unexpected error; continuing", e);
      }
    }
  }

  /** Interrupts the thread and waits up to 10 s for it to end. Idempotent. */
  @Override
  public void close() {
    running = false;
    owner.interrupt();
    DaemonThreads.awaitEnd(owner, Duration.ofSeconds(10));
  }
}
