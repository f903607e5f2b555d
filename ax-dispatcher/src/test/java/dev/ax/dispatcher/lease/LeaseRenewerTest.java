package dev.ax.dispatcher.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.testing.TestTasks;
import dev.ax.common.time.SystemClock;
import dev.ax.dispatcher.executor.NoopExecutor;
import dev.ax.dispatcher.run.BulkheadLimits;
import dev.ax.dispatcher.run.Bulkheads;
import dev.ax.dispatcher.run.Completion;
import dev.ax.dispatcher.run.QueueBound;
import dev.ax.dispatcher.store.ClaimStore.LeaseRenewal;
import dev.ax.dispatcher.store.ClaimedInstance;
import dev.ax.dispatcher.store.RunKey;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The renewer's rules over a fake database that holds every lease and records nothing. */
class LeaseRenewerTest {

  /** A lease of 3 s: a pass every second. */
  private static final Duration LEASE = Duration.ofSeconds(3);

  private final List<Completion> done = new CopyOnWriteArrayList<>();
  private final Bulkheads bulkheads =
      new Bulkheads(
          new SystemClock(),
          new BulkheadLimits(Map.of(), 1, 4, 4, Duration.ofSeconds(1)),
          QueueBound.NONE,
          done::add);
  private final FakeLeases leases = new FakeLeases();
  private final LeaseRenewer renewer = new LeaseRenewer(leases, new SystemClock());

  /** Holds every lease it is asked to renew, and counts the renewals of each run. */
  private static final class FakeLeases implements LeaseRenewer.Leases {
    final List<RunKey> renewed = new CopyOnWriteArrayList<>();

    @Override
    public Duration lease() {
      return LEASE;
    }

    @Override
    public LeaseRenewal renew(Collection<RunKey> runs, long nowMs) {
      renewed.addAll(runs);
      return new LeaseRenewal(runs.size(), Map.of());
    }

    @Override
    public List<String> releaseUnstarted(Collection<ClaimedInstance> unstarted, long nowMs) {
      return List.of();
    }
  }

  @AfterEach
  void stop() {
    renewer.close();
    bulkheads.shutdown(Duration.ofSeconds(5));
  }

  /**
   * An attempt that ended is renewed while its outcome is unrecorded, but not for ever: once the
   * database answered every renewal for a full lease since it ended and its row is still held (the
   * recorder dropped it), it is no longer renewed, and the reaper takes it back as after a crash.
   */
  @Test
  void anOutcomeNeverRecordedIsRenewedForALeaseOfReachableDatabaseThenLeftToTheReaper() {
    ClaimedInstance claimed =
        new ClaimedInstance("dropped@1", "dropped", 1, 1, 1_000, 1_000, "trace", 0, 0, null, 0);
    bulkheads
        .runnerFor("default")
        .submit(claimed, TestTasks.stored(TestTasks.onceNoop("dropped")), new NoopExecutor());
    await().atMost(Duration.ofSeconds(10)).until(() -> done.size() == 1);
    RunKey key = new RunKey("dropped@1", 1);
    assertThat(bulkheads.leased()).containsExactly(key);

    renewer.start(bulkheads);

    await().atMost(Duration.ofSeconds(15)).until(() -> bulkheads.leased().isEmpty());
    assertThat(leases.renewed)
        .as("renewed after it ended, for a lease (3 s) of passes a second apart")
        .filteredOn(key::equals)
        .hasSizeGreaterThanOrEqualTo(3);
  }
}
