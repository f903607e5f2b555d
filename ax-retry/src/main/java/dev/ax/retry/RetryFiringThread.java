package dev.ax.retry;

import dev.ax.common.thread.SteppingThread;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The owner thread of a {@link RetryLoop}, {@code ax-retry-fire}: waits up to {@link #IDLE_WAIT_MS}
 * for a handed-over retry, steps the loop, and waits as long as the step asks (after a failed
 * dispatch: a back-off while the database is away, not synchronisation).
 *
 * <p>An unexpected error in a step is logged and the loop goes on: only {@link #close()} ends it,
 * interrupting the thread at once and waiting up to 10 s for it to end. {@link #start()} and {@link
 * #close()} are called by the stage's owner.
 */
final class RetryFiringThread extends SteppingThread {

  private static final Logger log = LoggerFactory.getLogger(RetryFiringThread.class);

  /** How long the owner waits for a hand-over before it steps anyway (due retries fire). */
  static final long IDLE_WAIT_MS = 10;

  private final RetryLoop loop;

  RetryFiringThread(RetryLoop loop) {
    super("ax-retry-fire", log, "Retry firing loop", Duration.ZERO, Duration.ofSeconds(10));
    this.loop = loop;
  }

  @Override
  protected void step() throws InterruptedException {
    loop.await(IDLE_WAIT_MS);
    long waitMs = loop.step();
    if (waitMs > 0) {
      Thread.sleep(waitMs);
    }
  }
}
