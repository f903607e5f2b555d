package dev.ax.dispatcher.claim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.contract.TaskDueEvent;
import dev.ax.common.testing.TestTasks;
import dev.ax.common.time.SettableClock;
import dev.ax.dispatcher.run.Bulkheads;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ClaimLoopTest {

  private static final long T0 = 1_000_000;

  private final SettableClock clock = new SettableClock(Instant.ofEpochMilli(T0));
  private final FakeDispatcherPort port = new FakeDispatcherPort();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final ClaimLoop loop = loop(100);

  private ClaimLoop loop(int pollSize) {
    return new ClaimLoop(clock, port, new HoldBudget(Duration.ofSeconds(1)), pollSize, meters);
  }

  private TaskDueEvent due(String id, long dueAtMs) {
    return port.dispatched(TestTasks.dueEvent("task", id, dueAtMs, 1, dueAtMs, "t", "g"));
  }

  private static List<PooledEvent> in(String pool, TaskDueEvent... events) {
    return java.util.Arrays.stream(events).map(e -> new PooledEvent(pool, e)).toList();
  }

  private double counted(String name) {
    return meters.counter(name).count();
  }

  @Test
  void holdsEventsUnclaimedUntilTheirPoolHasRoom() {
    loop.inbox().offer(in("g", due("a", T0 - 20), due("b", T0 - 10)));
    loop.step();
    assertThat(port.claims).as("no room, no claim").isEmpty();
    assertThat(loop.inbox().backlog()).isEqualTo(2);

    port.setRoom("g", 1);
    loop.step();
    assertThat(port.startedIds()).containsExactly("a");
    assertThat(loop.inbox().backlog()).isEqualTo(1);
    assertThat(counted("ax.dispatcher.claimed")).isEqualTo(1);
  }

  @Test
  void claimsTheOldestDueFirstInEachPool() {
    port.setRoom("g", 2);
    port.setRoom("h", 1);
    loop.inbox().offer(in("g", due("g30", T0 - 30), due("g10", T0 - 50), due("g20", T0 - 40)));
    loop.inbox().offer(in("h", due("h2", T0 - 1), due("h1", T0 - 2)));
    loop.step();
    assertThat(port.startedIds()).containsExactlyInAnyOrder("g10", "g20", "h1");
    assertThat(port.started)
        .filteredOn(s -> s.pool().equals("g"))
        .extracting(FakeDispatcherPort.Started::instanceId)
        .containsExactly("g10", "g20");
    assertThat(port.claims).hasSize(1).as("one claim per pass");
  }

  @Test
  void aDuplicateEventIsClaimedOnce() {
    port.setRoom("g", 5);
    TaskDueEvent event = due("a", T0);
    loop.inbox().offer(in("g", event, event));
    loop.step();
    assertThat(port.claims.get(0).instanceIds()).containsExactly("a");
  }

  @Test
  void neverClaimsBeforeDueAndClaimsAgainAtTheDueTime() {
    port.setRoom("g", 5);
    loop.inbox().offer(in("g", due("early", T0 + 500), due("bogus", T0 + 61_000)));
    loop.step();
    assertThat(port.startedIds()).as("not due yet on this node's clock").isEmpty();
    assertThat(port.claims.get(0).instanceIds())
        .as("an event emitted ahead waits for its due time without a claim")
        .containsExactly("bogus");
    assertThat(counted("ax.dispatcher.claim.conflicts")).isEqualTo(1);

    clock.set(Instant.ofEpochMilli(T0 + 499));
    loop.step();
    assertThat(port.claims).as("no claim before the due time").hasSize(1);

    clock.set(Instant.ofEpochMilli(T0 + 500));
    loop.step();
    assertThat(port.startedIds()).containsExactly("early");
    assertThat(port.claims.get(1).instanceIds()).containsExactly("early");
    assertThat(port.claims.get(1).nowMs()).isEqualTo(T0 + 500);

    clock.set(Instant.ofEpochMilli(T0 + 61_000));
    loop.step();
    assertThat(port.claims).as("an event a minute ahead is left to the reaper").hasSize(2);
  }

  @Test
  void aLateClaimWhosePoolFilledMeanwhileWaitsHeldForRoom() {
    port.setRoom("g", 1);
    loop.inbox().offer(in("g", due("early", T0 + 500)));
    loop.step(); // lost: not due yet; its room is given back
    loop.inbox().offer(in("g", due("now", T0 - 1)));
    loop.step();
    assertThat(port.startedIds()).containsExactly("now");

    clock.set(Instant.ofEpochMilli(T0 + 500)); // the late claim is due, but the pool is full
    loop.step();
    assertThat(port.startedIds()).as("never more than the pool's room").containsExactly("now");
    assertThat(loop.inbox().backlog()).as("held with the others").isEqualTo(1);

    port.setRoom("g", 1);
    loop.step();
    assertThat(port.startedIds()).containsExactly("now", "early");
  }

  @Test
  void aLateClaimThatLosesItsTransactionIsClaimedAgainAtTheNextPass() {
    port.setRoom("g", 2);
    loop.inbox().offer(in("g", due("early", T0 + 500)));
    loop.step(); // lost: not due yet; waits as a late claim
    clock.set(Instant.ofEpochMilli(T0 + 500));
    port.failNextClaim = true; // e.g. a deadlock
    loop.step();
    assertThat(port.startedIds()).isEmpty();
    assertThat(loop.inbox().backlog()).as("held, not left to the reaper").isEqualTo(1);

    loop.step();
    assertThat(port.startedIds()).containsExactly("early");
  }

  @Test
  void aStalledGroupShedsItsBacklogBeyondWhatItStartedOnceHeldForTheHoldTime() {
    ClaimLoop small = loop(4);
    port.setRoom("fast", 10);
    small
        .inbox()
        .offer(
            in(
                "slow",
                due("s1", T0 - 6),
                due("s2", T0 - 5),
                due("s3", T0 - 4),
                due("s4", T0 - 3),
                due("s5", T0 - 2)));
    small.step();
    assertThat(counted("ax.dispatcher.shed.events")).as("backlogged only just now").isZero();
    assertThat(small.inbox().backlog()).isEqualTo(5);

    clock.set(Instant.ofEpochMilli(T0 + 1_000));
    small.inbox().offer(in("fast", due("f1", T0)));
    small.step();
    assertThat(counted("ax.dispatcher.shed.events")).isEqualTo(4);
    assertThat(small.inbox().backlog()).as("the oldest keeps the group's place").isEqualTo(1);
    assertThat(port.startedIds()).containsExactly("f1");

    port.setRoom("slow", 1);
    small.step();
    assertThat(port.startedIds()).containsExactly("f1", "s1");
  }

  @Test
  void belowAPollsWorthNothingIsShed() {
    ClaimLoop small = loop(4);
    small.inbox().offer(in("slow", due("s1", T0), due("s2", T0), due("s3", T0)));
    small.step();
    clock.set(Instant.ofEpochMilli(T0 + 10_000));
    small.step();
    assertThat(counted("ax.dispatcher.shed.events")).isZero();
    assertThat(small.inbox().backlog()).isEqualTo(3);
  }

  @Test
  void aHandBackSendsWhatWasOfferedBeforeIt() {
    loop.inbox().offer(in("g", due("a", T0)));
    loop.inbox().offer(in(Bulkheads.RETRY_GROUP, due("r", T0)));
    loop.inbox().requestHandBack("partitions revoked");
    loop.inbox().offer(in("g", due("b", T0)));
    loop.step();
    assertThat(port.handedBack.get("g")).extracting(TaskDueEvent::instanceId).containsExactly("a");
    assertThat(port.handedBack.get(Bulkheads.RETRY_GROUP))
        .extracting(TaskDueEvent::instanceId)
        .containsExactly("r");
    assertThat(port.handBackReasons).containsExactly("partitions revoked");
    assertThat(loop.inbox().backlog()).as("b came after the revocation").isEqualTo(1);
  }

  @Test
  void theSpecOfAnEventWaitingForItsDueTimeIsReadWhileItWaits() {
    port.setRoom("g", 5);
    loop.inbox()
        .offer(
            in(
                "g",
                port.dispatched(
                    TestTasks.dueEvent("t-ahead", "ahead", T0 + 100, 1, T0, "t", "g"))));
    loop.step();
    assertThat(port.claims).as("not claimed before its due time").isEmpty();
    assertThat(port.prefetched).containsExactly(java.util.Set.of("t-ahead"));
  }

  @Test
  void aHandBackAlsoSendsTheEventsWaitingForTheirDueTime() {
    port.setRoom("g", 5);
    loop.inbox().offer(in("g", due("ahead", T0 + 100), due("now", T0)));
    loop.step();
    assertThat(port.startedIds()).containsExactly("now");

    loop.inbox().requestHandBack("partitions revoked");
    loop.step();
    assertThat(port.handedBack.get("g"))
        .extracting(TaskDueEvent::instanceId)
        .containsExactly("ahead");

    clock.set(Instant.ofEpochMilli(T0 + 100));
    loop.step();
    assertThat(port.startedIds())
        .as("handed back: the next owner claims it")
        .containsExactly("now");
  }

  @Test
  void stoppingHandsBackEverythingHeldOrHandedOver() {
    loop.inbox().offer(in("g", due("held", T0)));
    loop.step();
    loop.inbox().offer(in("g", due("unpicked", T0)));
    loop.close();
    assertThat(port.handedBack.get("g"))
        .extracting(TaskDueEvent::instanceId)
        .containsExactlyInAnyOrder("held", "unpicked");
    assertThat(port.handBackReasons).containsExactly("shutting down");
    assertThat(port.claims).isEmpty();
    assertThat(loop.inbox().backlog()).isZero();
  }

  @Test
  void aFailedClaimKeepsItsEventsAndPausesClaimsForTheBackoff() {
    port.setRoom("g", 5);
    port.failNextClaim = true;
    loop.inbox().offer(in("g", due("a", T0)));
    loop.step();
    assertThat(port.startedIds()).isEmpty();
    assertThat(loop.inbox().backlog()).isEqualTo(1);

    clock.tick(ClaimLoop.CLAIM_RETRY_BACKOFF.minusMillis(1));
    loop.step();
    assertThat(port.claims).hasSize(1);

    clock.tick(Duration.ofMillis(1));
    loop.step();
    assertThat(port.startedIds()).containsExactly("a");
  }

  @Test
  void whileClaimsArePausedALateClaimDueNowDoesNotMakeTheLoopSpin() {
    port.setRoom("g", 5);
    loop.inbox().offer(in("g", due("late", T0 + 100)));
    loop.step(); // lost: not due yet; waits as a late claim
    assertThat(loop.waitMs()).isEqualTo(ClaimLoop.DRAIN_INTERVAL_MS);
    clock.set(Instant.ofEpochMilli(T0 + 95));
    assertThat(loop.waitMs()).as("wakes for the late claim's due time").isEqualTo(5);

    port.failNextClaim = true;
    loop.inbox().offer(in("g", due("b", T0)));
    loop.step(); // the claim fails: claims pause for the backoff
    clock.set(Instant.ofEpochMilli(T0 + 200)); // the late claim is past due now
    assertThat(loop.waitMs())
        .as("paused: waits the drain interval, not 1 ms, though a late claim is due")
        .isEqualTo(ClaimLoop.DRAIN_INTERVAL_MS);
  }

  @Test
  void aClaimUnderWayWhenTheStopArrivesStartsWhatItWon() {
    port.setRoom("g", 5);
    loop.inbox().offer(in("g", due("a", T0)));
    port.onClaim = loop::close; // the stop arrives while the claim's round trip is under way
    loop.step();
    assertThat(port.claims).hasSize(1);
    assertThat(port.startedIds())
        .as("won and started, not left RUNNING for the reaper to start again one attempt later")
        .containsExactly("a");
  }

  @Test
  void itsThreadClaimsWhatIsHandedOverAndHandsBackTheRestOnClose() {
    port.setRoom("g", 1);
    loop.start();
    loop.inbox().offer(in("g", due("a", T0 - 1), due("b", T0)));
    loop.inbox().awaitPickedUp(Duration.ofSeconds(5));
    await().atMost(Duration.ofSeconds(5)).until(() -> port.startedIds().contains("a"));
    assertThat(loop.inbox().backlog()).isEqualTo(1);
    loop.close();
    assertThat(port.handedBack.get("g")).extracting(TaskDueEvent::instanceId).containsExactly("b");
  }

  @Test
  void aStartThatOutlivesTheStopWaitEndsBeforeCloseReturnsSoNoRunStartsAfterIt() throws Exception {
    ClaimLoop slow =
        new ClaimLoop(
            clock, port, new HoldBudget(Duration.ofSeconds(1)), 100, meters, Duration.ofMillis(50));
    CountDownLatch inStart = new CountDownLatch(1);
    CountDownLatch specsRead = new CountDownLatch(1);
    port.holdStarts(inStart, specsRead); // a spec read slower than the stop wait
    port.setRoom("g", 5);
    slow.start();
    slow.inbox().offer(in("g", due("a", T0)));
    assertThat(inStart.await(5, TimeUnit.SECONDS)).isTrue();

    Thread closer = new Thread(slow::close, "closer");
    closer.start();
    // Past the stop wait, close gives up on the loop only after the hand-over in progress.
    await().atMost(Duration.ofSeconds(5)).until(() -> closer.getState() == Thread.State.BLOCKED);
    assertThat(port.startedIds()).as("the start is still under way").isEmpty();
    specsRead.countDown();
    closer.join(5_000);

    assertThat(closer.isAlive()).isFalse();
    assertThat(port.startedIds()).as("started before close returned").containsExactly("a");
  }
}
