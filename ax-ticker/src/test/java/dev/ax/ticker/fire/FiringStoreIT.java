package dev.ax.ticker.fire;

import static dev.ax.common.testing.TestTasks.newTask;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.LeaseStore;
import dev.ax.common.store.NewInstance;
import dev.ax.common.store.NewTask;
import dev.ax.common.testing.RoundTrips;
import dev.ax.common.testing.StoreFixture;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The ticker's SQL ({@link FiringStore}) against a real MySQL-protocol server. */
@ExtendWith(AxInfraExtension.class)
class FiringStoreIT {

  @RegisterExtension final StoreFixture store;

  FiringStoreIT(AxTestEnv env) {
    store = StoreFixture.open(env);
  }

  /** Creates the tasks; returns the seq of each one's first instance, by task id. */
  private Map<String, Long> create(NewTask... batch) {
    Map<String, Long> seqByInstanceId =
        store.tasks().create(List.of(batch), "ingest-1", 10).seqByInstanceId();
    Map<String, Long> seqByTask = new HashMap<>();
    seqByInstanceId.forEach((id, seq) -> seqByTask.put(id.substring(0, id.indexOf('@')), seq));
    return seqByTask;
  }

  /**
   * A firing of one-shot instances is one round trip: its last move's packet commits. A firing that
   * creates successors commits after inserting them, so the next firing exists exactly when its
   * predecessor moved. A stale fence moves and creates nothing.
   */
  @Test
  void aFiringCommitsInItsLastPacketUnlessItCreatesSuccessors() {
    Map<String, Long> seqs = create(newTask("f-1", 100), newTask("f-2", 100), newTask("f-3", 100));
    LeaseStore leases = new LeaseStore(store.runtime().dataSource());
    LeaseStore.Lease lease =
        leases.tryAcquire(LeaseFence.TICKER, "ticker-1", Duration.ofSeconds(30)).orElseThrow();
    LeaseFence fence = new LeaseFence(LeaseFence.TICKER, "ticker-1", lease.epoch());
    RoundTrips roundTrips = new RoundTrips(store.runtime().dataSource());
    FiringStore counted = new FiringStore(roundTrips.dataSource());

    FiringStore.FireResult oneShot =
        fire(counted, List.of(seqs.get("f-1")), Map.of(), fence, 100, Map.of());

    assertThat(roundTrips.count()).as("round trips of a one-shot firing").isEqualTo(1);
    assertThat(oneShot.dispatched()).extracting(DueInstance::instanceId).containsExactly("f-1@100");
    assertThat(store.instances().find("f-1@100"))
        .get()
        .extracting(InstanceRow::status)
        .isEqualTo(InstanceStatus.DISPATCHED);

    NewInstance next =
        new NewInstance("f-2@5000", "f-2", 1, 5000, "trace-f-2", "next firing", null, false);
    NewInstance notMoved =
        new NewInstance("f-1@5000", "f-1", 1, 5000, "trace-f-1", "next firing", null, false);
    FiringStore.FireResult periodic =
        fire(
            counted,
            List.of(seqs.get("f-2"), seqs.get("f-1")),
            Map.of("misfire", List.of(seqs.get("f-3"))),
            fence,
            100,
            Map.of("f-2@100", List.of(next), "f-1@100", List.of(notMoved)));

    assertThat(periodic.dispatched())
        .extracting(DueInstance::instanceId)
        .containsExactly("f-2@100");
    assertThat(periodic.skipped()).extracting(DueInstance::instanceId).containsExactly("f-3@100");
    assertThat(periodic.created()).containsOnlyKeys("f-2@5000");
    assertThat(store.instances().find("f-2@5000"))
        .get()
        .extracting(InstanceRow::status)
        .isEqualTo(InstanceStatus.SCHEDULED);
    assertThat(store.instances().find("f-1@5000"))
        .as("successor of a row that did not move")
        .isEmpty();

    long seq4 = create(newTask("f-4", 100)).get("f-4");
    LeaseFence stale = new LeaseFence(LeaseFence.TICKER, "ticker-1", lease.epoch() - 1);
    FiringStore.FireResult fenced =
        fire(
            counted,
            List.of(seq4),
            Map.of(),
            stale,
            100,
            Map.of(
                "f-4@100",
                List.of(new NewInstance("f-4@5000", "f-4", 1, 5000, "t", "next", null, false))));
    assertThat(fenced.dispatched()).isEmpty();
    assertThat(fenced.created()).isEmpty();
    assertThat(store.instances().find("f-4@5000")).isEmpty();
    assertThat(store.instances().find("f-4@100"))
        .get()
        .extracting(InstanceRow::status)
        .isEqualTo(InstanceStatus.SCHEDULED);
    leases.release(lease);
  }

  /**
   * The reads by key list split lists longer than one IN list (500) and keep every chunk's rows:
   * the rows still SCHEDULED, oldest due first, and the tasks with a run in flight.
   */
  @Test
  void readsByKeyListCoverEveryChunk() {
    int count = 501;
    List<NewTask> batch = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      batch.add(newTask("c-" + i, 1_000 - i));
    }
    Map<String, Long> seqs = create(batch.toArray(NewTask[]::new));
    List<String> dispatched = List.of(InstanceIds.of("c-0", 1_000), InstanceIds.of("c-500", 500));
    assertThat(store.runtime().markDispatchedAsLeader("ticker-1", dispatched, 1_000)).hasSize(2);
    FiringStore firings = new FiringStore(store.runtime().dataSource());

    List<DueInstance> scheduled = firings.findScheduledBySeq(seqs.values());

    assertThat(scheduled).hasSize(count - 2);
    assertThat(scheduled).extracting(DueInstance::dueAtMs).isSorted().doesNotContain(1_000L, 500L);
    assertThat(firings.tasksInFlight(seqs.keySet())).containsExactlyInAnyOrder("c-0", "c-500");
    assertThat(firings.findScheduledBySeq(List.of())).isEmpty();
    assertThat(firings.tasksInFlight(List.of())).isEmpty();
  }

  /**
   * A live attempt is one DISPATCHED, RUNNING or RETRYING (waiting out its backoff): a task with
   * {@code concurrent=false} does not fire again while its previous firing waits for a retry.
   * Instances held PAUSED or ended do not count.
   */
  @Test
  void aRetryWaitingForItsBackoffCountsAsInFlight() {
    Map<String, Long> seqs =
        create(
            newTask("s-retrying", 100),
            newTask("s-running", 100),
            newTask("s-paused", 100),
            newTask("s-dead", 100),
            newTask("s-scheduled", 100));
    setStatus("s-retrying", InstanceStatus.RETRYING);
    setStatus("s-running", InstanceStatus.RUNNING);
    setStatus("s-paused", InstanceStatus.PAUSED);
    setStatus("s-dead", InstanceStatus.DEAD);

    assertThat(new FiringStore(store.runtime().dataSource()).tasksInFlight(seqs.keySet()))
        .containsExactlyInAnyOrder("s-retrying", "s-running");
  }

  private void setStatus(String taskId, InstanceStatus status) {
    new Jdbc(store.runtime().dataSource())
        .inTransaction(
            "set the status of " + taskId,
            tx ->
                tx.update(
                    "UPDATE ax_instance SET status = ?, attempt = 1 WHERE task_id = ?",
                    Jdbc.Binder.values(status.name(), taskId)));
  }

  /** One firing of these rows, as a plan of only dispatches, skips and successors. */
  private static FiringStore.FireResult fire(
      FiringStore firings,
      List<Long> dispatch,
      Map<String, List<Long>> skip,
      LeaseFence fence,
      long nowMs,
      Map<String, List<NewInstance>> successors) {
    FirePlan plan = new FirePlan();
    plan.dispatch.addAll(dispatch);
    skip.forEach((reason, seqs) -> seqs.forEach(seq -> plan.skip(reason, seq)));
    successors.forEach((id, next) -> plan.successorsByInstanceId.put(id, next));
    return firings.fire(plan, fence, nowMs, FiringStore.NotRunEvents.NONE);
  }
}
