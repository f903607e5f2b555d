package dev.ax.dispatcher;

import dev.ax.common.thread.DaemonThreads;
import dev.ax.common.time.Clock;
import dev.ax.common.time.SaturatingMillis;
import dev.ax.dispatcher.run.Bulkheads;
import dev.ax.dispatcher.store.RunKey;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Extends the lease of every run in progress every third of a lease (at least every second), so
 * that only runs whose dispatcher died are taken back by the reaper, however long they run. When
 * some were not renewed, it asks which of those were CANCELLED meanwhile (a CANCEL with {@code
 * "interrupt": true}) and interrupts their attempts: the one moment a dispatcher learns of it.
 *
 * <p>Threading: its own scheduler thread does every renewal; it reads the running attempts from the
 * thread-safe {@link Bulkheads} and shares nothing else. {@link #close()} from any thread.
 */
final class LeaseRenewer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LeaseRenewer.class);

  private final Bulkheads bulkheads;
  private final RunLeases leases;
  private final Clock clock;
  private final ScheduledExecutorService timer =
      DaemonThreads.scheduler("ax-dispatcher-lease-renewal");

  LeaseRenewer(Bulkheads bulkheads, RunLeases leases, Clock clock) {
    this.bulkheads = bulkheads;
    this.leases = leases;
    this.clock = clock;
  }

  void start() {
    long renewEveryMs = Math.max(1000, SaturatingMillis.toMillis(leases.lease()) / 3);
    timer.scheduleWithFixedDelay(
        this::renewQuietly, renewEveryMs, renewEveryMs, TimeUnit.MILLISECONDS);
  }

  private void renewQuietly() {
    try {
      Set<RunKey> runs = bulkheads.running();
      int renewed = leases.renew(runs, clock.millis());
      if (renewed < runs.size()) {
        log.debug(
            "{} of {} run lease(s) not renewed: those runs finished, were taken back or cancelled",
            runs.size() - renewed,
            runs.size());
        for (RunKey cancelled : leases.cancelledAmong(runs)) {
          bulkheads.interrupt(cancelled, "its instance was cancelled (CANCEL with interrupt)");
        }
      }
    } catch (RuntimeException e) {
      log.warn("Could not renew run leases; retrying at the next interval: {}", e.toString());
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
