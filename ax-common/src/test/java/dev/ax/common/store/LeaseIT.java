package dev.ax.common.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TestTasks;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The lease and its fence, on the database clock. */
@ExtendWith(AxInfraExtension.class)
class LeaseIT {

  @Test
  void oneHolderAtATimeAndAStaleLeaderMarksNothing(AxTestEnv env) {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      LeaseStore leases = new LeaseStore(runtime.dataSource());
      TaskSpec spec = TestTasks.onceNoop("t");
      new TaskStore(runtime.dataSource()).create(List.of(new NewTask(spec, "tr", 10)), "test", 10);
      String id = InstanceIds.of("t", 10);

      LeaseStore.Lease a =
          leases.tryAcquire(LeaseFence.TICKER, "a", Duration.ofSeconds(1)).orElseThrow();
      assertThat(leases.tryAcquire(LeaseFence.TICKER, "b", Duration.ofSeconds(1)))
          .as("held by a")
          .isEmpty();
      assertThat(leases.renew(a, Duration.ofSeconds(1))).isPresent();

      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> leases.tryAcquire(LeaseFence.TICKER, "b", Duration.ofSeconds(30)).isPresent());
      LeaseStore.Lease b = leases.current(LeaseFence.TICKER).orElseThrow();

      assertThat(b.epoch()).isGreaterThan(a.epoch());
      assertThat(leases.renew(a, Duration.ofSeconds(1))).as("a lost it").isEmpty();
      assertThat(
              runtime.markDispatched(
                  List.of(id), new LeaseFence(LeaseFence.TICKER, "a", a.epoch()), 20))
          .as("stale leader")
          .isEmpty();
      assertThat(
              runtime.markDispatched(
                  List.of(id), new LeaseFence(LeaseFence.TICKER, "b", b.epoch()), 20))
          .hasSize(1);
      assertThat(leases.release(b)).isTrue();
      assertThat(leases.tryAcquire(LeaseFence.TICKER, "a", Duration.ofSeconds(1)))
          .as("free after release")
          .isPresent();
    }
  }

  @Test
  void aRestartedHolderGetsANewEpoch(AxTestEnv env) {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      LeaseStore leases = new LeaseStore(runtime.dataSource());
      LeaseStore.Lease first =
          leases.tryAcquire(LeaseFence.TICKER, "a", Duration.ofSeconds(30)).orElseThrow();

      LeaseStore.Lease again =
          leases.tryAcquire(LeaseFence.TICKER, "a", Duration.ofSeconds(30)).orElseThrow();

      assertThat(again.epoch()).isEqualTo(first.epoch() + 1);
      assertThat(leases.renew(first, Duration.ofSeconds(30)))
          .as("the old incarnation is fenced")
          .isEmpty();
    }
  }

  @Test
  void anExpiredLeaseNobodyTookIsRenewedAtTheSameEpoch(AxTestEnv env) {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      LeaseStore leases = new LeaseStore(runtime.dataSource());
      LeaseStore.Lease a =
          leases.tryAcquire(LeaseFence.TICKER, "a", Duration.ofSeconds(1)).orElseThrow();
      // As after a database restart longer than the lease: expired, and nobody took it.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  leases.current(LeaseFence.TICKER).orElseThrow().leaseUntilMs()
                      < runtime.clock().millis());

      LeaseStore.Lease renewed = leases.renew(a, Duration.ofSeconds(30)).orElseThrow();

      assertThat(renewed.epoch()).isEqualTo(a.epoch());
      assertThat(renewed.leaseUntilMs()).isGreaterThan(runtime.clock().millis());
      assertThat(leases.tryAcquire(LeaseFence.TICKER, "b", Duration.ofSeconds(30)))
          .as("held by a again")
          .isEmpty();
    }
  }
}
