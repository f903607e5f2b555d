package dev.ax.dispatcher;

import dev.ax.common.thread.DaemonThreads;
import dev.ax.common.time.Clock;
import dev.ax.common.time.SaturatingMillis;
import dev.ax.dispatcher.run.Bulkheads;
import dev.ax.dispatcher.store.ClaimStore;
import dev.ax.dispatcher.store.RunKey;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Extends the lease of every run in progress every third of a lease (at least every second), so
 * that only runs whose dispatcher died are taken back by the reaper, however long they run.
 *
 * <p>Threading: its own scheduler thread does every renewal; it reads the running attempts from the
 * thread-safe {@link Bulkheads} and shares nothing else. {@link #close()} from any thread.
 */
final class LeaseRenewer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LeaseRenewer.class);

  private final Bulkheads bulkheads;
  private final ClaimStore claims;
  private final Clock clock;
  private final String owner;
  private final Duration lease;
  private final ScheduledExecutorService timer =
      DaemonThreads.scheduler("ax-dispatcher-lease-renewal");

  LeaseRenewer(Bulkheads bulkheads, ClaimStore claims, Clock clock, String owner, Duration lease) {
    this.bulkheads = bulkheads;
    this.claims = claims;
    this.clock = clock;
    this.owner = owner;
    this.lease = lease;
  }

  void start() {
    long renewEveryMs = Math.max(1000, SaturatingMillis.toMillis(lease) / 3);
    timer.scheduleWithFixedDelay(
        this::renewQuietly, renewEveryMs, renewEveryMs, TimeUnit.MILLISECONDS);
  }

  private void renewQuietly() {
    try {
      Set<RunKey> runs = bulkheads.running();
      long nowMs = clock.millis();
      int renewed = claims.renewLeases(runs, owner, SaturatingMillis.atMs(nowMs, lease), nowMs);
      if (renewed < runs.size()) {
        log.debug(
            "{} of {} run lease(s) not renewed: those runs finished or were taken back",
            runs.size() - renewed,
            runs.size());
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
