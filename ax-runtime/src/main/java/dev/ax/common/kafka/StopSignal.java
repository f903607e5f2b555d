package dev.ax.common.kafka;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The stop request of one {@link ConsumerLoop}: raised once, by {@link ConsumerLoop#close()}, and
 * read by the loop thread between polls and during its waits, so that a wait before the next try of
 * a batch ends as soon as the loop is asked to stop.
 *
 * <p>Thread-safe: {@link #stop()} from any thread; the reads from any thread (the loop's, in use).
 */
final class StopSignal {

  private final CountDownLatch raised = new CountDownLatch(1);

  void stop() {
    raised.countDown();
  }

  boolean stopped() {
    return raised.getCount() == 0;
  }

  /**
   * Waits up to {@code timeout} for the stop.
   *
   * @return true when the loop is to stop (asked before or during the wait)
   */
  boolean awaitStop(Duration timeout) throws InterruptedException {
    return raised.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }
}
