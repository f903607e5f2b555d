package dev.ax.common.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.testing.StoreFixture;
import dev.ax.common.testing.TestTasks;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The lease and its fence, on the database clock. */
@ExtendWith(AxInfraExtension.class)
class LeaseIT {

  @RegisterExtension final StoreFixture store;
  private final LeaseStore leases;

  LeaseIT(AxTestEnv env) {
    store = StoreFixture.open(env);
    leases = new LeaseStore(store.runtime().dataSource());
  }

  /** The ticker lease for {@code holder}, which must be free for it. */
  private LeaseStore.Lease acquire(String holder, Duration lease) {
    return leases.tryAcquire(LeaseFence.TICKER, holder, lease).orElseThrow();
  }

  @Test
  void oneHolderAtATimeAndAStaleLeaderMarksNothing() {
    TaskSpec spec = TestTasks.onceNoop("t");
    store.tasks().create(List.of(new NewTask(spec, "tr", 10)), "test", 10);
    String id = InstanceIds.of("t", 10);

    LeaseStore.Lease a = acquire("a", Duration.ofSeconds(1));
    assertThat(leases.tryAcquire(LeaseFence.TICKER, "b", Duration.ofSeconds(1)))
        .as("held by a")
        .isEmpty();
    assertThat(leases.renew(a, Duration.ofSeconds(1))).isPresent();

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> leases.tryAcquire(LeaseFence.TICKER, "b", Duration.ofSeconds(30)).isPresent());
    LeaseStore.Lease b = leases.current(LeaseFence.TICKER).orElseThrow();

    assertThat(b.epoch()).isGreaterThan(a.epoch());
    assertThat(leases.renew(a, Duration.ofSeconds(1))).as("a lost it").isEmpty();
    assertThat(
            store
                .runtime()
                .markDispatched(List.of(id), new LeaseFence(LeaseFence.TICKER, "a", a.epoch()), 20))
        .as("stale leader")
        .isEmpty();
    assertThat(
            store
                .runtime()
                .markDispatched(List.of(id), new LeaseFence(LeaseFence.TICKER, "b", b.epoch()), 20))
        .hasSize(1);
    assertThat(leases.release(b)).isTrue();
    assertThat(leases.tryAcquire(LeaseFence.TICKER, "a", Duration.ofSeconds(1)))
        .as("free after release")
        .isPresent();
  }

  @Test
  void aRestartedHolderGetsANewEpoch() {
    LeaseStore.Lease first = acquire("a", Duration.ofSeconds(30));

    LeaseStore.Lease again = acquire("a", Duration.ofSeconds(30));

    assertThat(again.epoch()).isEqualTo(first.epoch() + 1);
    assertThat(leases.renew(first, Duration.ofSeconds(30)))
        .as("the old incarnation is fenced")
        .isEmpty();
  }

  @Test
  void anExpiredLeaseNobodyTookIsRenewedAtTheSameEpoch() {
    LeaseStore.Lease a = acquire("a", Duration.ofSeconds(1));
    // As after a database restart longer than the lease: expired, and nobody took it.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                leases.current(LeaseFence.TICKER).orElseThrow().leaseUntilMs()
                    < store.runtime().clock().millis());

    LeaseStore.Lease renewed = leases.renew(a, Duration.ofSeconds(30)).orElseThrow();

    assertThat(renewed.epoch()).isEqualTo(a.epoch());
    assertThat(renewed.leaseUntilMs()).isGreaterThan(store.runtime().clock().millis());
    assertThat(leases.tryAcquire(LeaseFence.TICKER, "b", Duration.ofSeconds(30)))
        .as("held by a again")
        .isEmpty();
  }
}
