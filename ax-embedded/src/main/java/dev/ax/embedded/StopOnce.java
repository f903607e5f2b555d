package dev.ax.embedded;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;

/**
 * The {@code close()} of an embedded server: runs its stop on the first call only, however many
 * threads race to close, and logs how long the stop took (also when it throws). Thread-safe.
 */
final class StopOnce {

  private final AtomicBoolean stopped = new AtomicBoolean();

  /**
   * Runs {@code stop} unless an earlier call did, then logs "{@code <server> stopped in <n> ms}".
   *
   * @param log the server class's logger
   * @param server the server as the log line names it, e.g. {@code "Embedded MariaDB at <url>"}
   */
  void stop(Logger log, String server, Runnable stop) {
    if (!stopped.compareAndSet(false, true)) {
      return;
    }
    long startNanos = System.nanoTime();
    try {
      stop.run();
    } finally {
      log.info(
          "{} stopped in {} ms",
          server,
          Duration.ofNanos(System.nanoTime() - startNanos).toMillis());
    }
  }
}
