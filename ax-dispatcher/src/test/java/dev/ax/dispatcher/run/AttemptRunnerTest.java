package dev.ax.dispatcher.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.RetryPolicy;
import dev.ax.common.model.Trigger;
import dev.ax.common.store.StoredTask;
import dev.ax.common.testing.TestTasks;
import dev.ax.common.time.SettableClock;
import dev.ax.dispatcher.BlockingExecutor;
import dev.ax.dispatcher.executor.NoopExecutor;
import dev.ax.dispatcher.store.ClaimedInstance;
import dev.ax.dispatcher.store.RunKey;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class AttemptRunnerTest {

  /**
   * A run that ends before its timeout timer is even scheduled must still drop that timer: left
   * queued until its deadline (a minute here), it would hold the attempt and its spec in memory,
   * which at thousands of quick runs a second is hundreds of thousands of objects kept alive.
   */
  @Test
  void quickRunsLeaveNoTimerBehind() {
    List<Completion> done = new CopyOnWriteArrayList<>();
    StoredTask task = oneMinuteTask("quick", "noop");
    int runs = 2_000;
    try (AttemptRunner runner =
        new AttemptRunner(new SettableClock(Instant.ofEpochMilli(1_000)), 4, runs, done::add)) {
      for (int i = 0; i < runs; i++) {
        String id = "quick@" + i;
        runner.submit(
            new ClaimedInstance(id, "quick", 1, 1, 1_000, 1_000, "trace", 0, i, id, 0),
            task,
            new NoopExecutor());
      }

      await().atMost(Duration.ofSeconds(30)).until(() -> done.size() == runs);
      assertThat(done).extracting(Completion::status).containsOnly(InstanceStatus.SUCCESS);
      assertThat(runner.pendingTimers()).as("timers still queued after every run ended").isZero();
    }
  }

  /**
   * When the stop's grace runs out, the attempts still queued never run and are handed back to the
   * caller, which releases their rows; the one running is interrupted and, having started, is left
   * to the reaper. Neither is recorded.
   */
  @Test
  void aStopPastItsGraceHandsBackTheQueuedAttemptsItNeverStarted() {
    List<Completion> done = new CopyOnWriteArrayList<>();
    BlockingExecutor blocking = new BlockingExecutor();
    StoredTask task = oneMinuteTask("blocked", "block");
    AttemptRunner runner =
        new AttemptRunner(new SettableClock(Instant.ofEpochMilli(1_000)), 1, 4, done::add);
    runner.submit(claimed("running@2"), task, blocking);
    runner.submit(claimed("queued@2"), task, blocking);
    runner.submit(claimed("queued@3"), task, blocking);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> BlockingExecutor.STARTED.contains("running@2"));

    List<ClaimedInstance> unstarted = runner.shutdown(Duration.ZERO);

    assertThat(unstarted)
        .extracting(ClaimedInstance::instanceId)
        .containsExactlyInAnyOrder("queued@2", "queued@3");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> BlockingExecutor.INTERRUPTED.contains("running@2"));
    await().atMost(Duration.ofSeconds(10)).until(() -> runner.inFlight() == 0);
    assertThat(runner.leased()).isEmpty();
    assertThat(BlockingExecutor.STARTED).doesNotContain("queued@2", "queued@3");
    assertThat(done).as("nothing recorded: the reaper or the release owns these rows").isEmpty();
  }

  /**
   * An interrupt (a CANCEL with interrupt) stops a running attempt and one still queued, records no
   * outcome for either (their rows are CANCELLED already), frees their room, and leaves the other
   * attempts alone.
   */
  @Test
  void anInterruptStopsARunningOrQueuedAttemptAndRecordsNoOutcome() {
    List<Completion> done = new CopyOnWriteArrayList<>();
    BlockingExecutor blocking = new BlockingExecutor();
    StoredTask task = oneMinuteTask("blocked", "block");
    try (AttemptRunner runner =
        new AttemptRunner(new SettableClock(Instant.ofEpochMilli(1_000)), 1, 4, done::add)) {
      runner.submit(claimed("running@1"), task, blocking);
      runner.submit(claimed("queued@1"), task, blocking);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> BlockingExecutor.STARTED.contains("running@1"));
      assertThat(runner.inFlight()).isEqualTo(2);

      assertThat(runner.interrupt(new RunKey("queued@1", 1), "cancelled")).isTrue();
      assertThat(runner.interrupt(new RunKey("running@1", 1), "cancelled")).isTrue();
      assertThat(runner.interrupt(new RunKey("running@1", 1), "again")).as("once").isFalse();
      assertThat(runner.interrupt(new RunKey("other@1", 1), "unknown")).isFalse();

      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> BlockingExecutor.INTERRUPTED.contains("running@1"));
      assertThat(runner.inFlight()).isZero();
      assertThat(runner.leased()).isEmpty();
      assertThat(BlockingExecutor.STARTED)
          .as("the queued one never ran")
          .doesNotContain("queued@1");
      assertThat(done).as("no outcome recorded for an interrupted attempt").isEmpty();
    }
  }

  /**
   * An attempt's deadline counts from its start, not from its claim: with one worker busy on a run
   * longer than the next attempt's timeout, that attempt waits in the queue past its timeout and
   * then runs in full, rather than ending TIMEOUT without having run (and burning a retry).
   */
  @Test
  void anAttemptQueuedLongerThanItsTimeoutStillRunsItsFullTimeOnceStarted() {
    List<Completion> done = new CopyOnWriteArrayList<>();
    BlockingExecutor blocking = new BlockingExecutor();
    try (AttemptRunner runner =
        new AttemptRunner(new SettableClock(Instant.ofEpochMilli(1_000)), 1, 4, done::add)) {
      runner.submit(claimed("long@7"), oneMinuteTask("blocked", "block"), blocking);
      runner.submit(claimed("short@7"), task("short", "noop", Duration.ofMillis(200)), noop());
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> BlockingExecutor.STARTED.contains("long@7"));

      // Three times the queued attempt's timeout: nothing may settle it while it waits.
      await()
          .during(Duration.ofMillis(600))
          .atMost(Duration.ofSeconds(5))
          .until(() -> done.isEmpty());
      BlockingExecutor.release("long@7");

      await().atMost(Duration.ofSeconds(10)).until(() -> done.size() == 2);
      assertThat(done)
          .extracting(c -> c.claimed().instanceId(), Completion::status)
          .containsExactly(
              tuple("long@7", InstanceStatus.SUCCESS), tuple("short@7", InstanceStatus.SUCCESS));
    }
  }

  /**
   * An attempt that cannot start within its pool's queue bound is given back unstarted, the same
   * attempt, and never recorded; the run ahead of it goes on and is recorded.
   */
  @Test
  void anAttemptQueuedPastTheQueueBoundIsGivenBackUnstartedAndNotRecorded() {
    List<Completion> done = new CopyOnWriteArrayList<>();
    List<ClaimedInstance> givenBack = new CopyOnWriteArrayList<>();
    BlockingExecutor blocking = new BlockingExecutor();
    try (AttemptRunner runner = queueBoundRunner(4, done, givenBack)) {
      runner.submit(claimed("ahead@8"), oneMinuteTask("blocked", "block"), blocking);
      runner.submit(claimed("behind@8"), oneMinuteTask("blocked", "block"), blocking);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> BlockingExecutor.STARTED.contains("ahead@8"));

      await().atMost(Duration.ofSeconds(10)).until(() -> givenBack.size() == 1);
      assertThat(givenBack.get(0).instanceId()).isEqualTo("behind@8");
      assertThat(givenBack.get(0).attempt()).as("the same attempt").isEqualTo(1);
      assertThat(runner.inFlight()).as("its room is free again").isEqualTo(1);
      BlockingExecutor.release("ahead@8");
      BlockingExecutor.release("behind@8");

      await().atMost(Duration.ofSeconds(10)).until(() -> done.size() == 1);
      assertThat(done.get(0).claimed().instanceId()).isEqualTo("ahead@8");
      assertThat(done.get(0).status()).isEqualTo(InstanceStatus.SUCCESS);
      await().atMost(Duration.ofSeconds(10)).until(() -> runner.inFlight() == 0);
      assertThat(BlockingExecutor.STARTED).as("never started").doesNotContain("behind@8");
    }
  }

  /**
   * The room an attempt given back from the queue frees is room in the queue too: the next attempt
   * admitted is queued and runs, not refused "at capacity" (recorded FAILED after its claim, a
   * retry used for a run that never started) because the given-back run still held its slot.
   */
  @Test
  void theQueueSlotOfAnAttemptGivenBackTakesTheNextAttempt() {
    List<Completion> done = new CopyOnWriteArrayList<>();
    List<ClaimedInstance> givenBack = new CopyOnWriteArrayList<>();
    BlockingExecutor blocking = new BlockingExecutor();
    try (AttemptRunner runner = queueBoundRunner(1, done, givenBack)) {
      runner.submit(claimed("ahead@10"), oneMinuteTask("blocked", "block"), blocking);
      runner.submit(claimed("behind@10"), oneMinuteTask("blocked", "block"), blocking);
      await().atMost(Duration.ofSeconds(10)).until(() -> givenBack.size() == 1);
      assertThat(runner.freeCapacity()).as("the given-back attempt's room").isEqualTo(1);

      runner.submit(claimed("next@10"), oneMinuteTask("blocked", "block"), blocking);

      assertThat(done).as("nothing refused at capacity").isEmpty();
      BlockingExecutor.release("ahead@10");
      BlockingExecutor.release("next@10");
      await().atMost(Duration.ofSeconds(10)).until(() -> done.size() == 2);
      assertThat(done)
          .extracting(c -> c.claimed().instanceId() + " " + c.status())
          .containsExactlyInAnyOrder("ahead@10 SUCCESS", "next@10 SUCCESS");
      assertThat(BlockingExecutor.STARTED).doesNotContain("behind@10");
    }
  }

  /** One worker, a queue of {@code queue}, and a queue bound of 200 ms giving back to a list. */
  private static AttemptRunner queueBoundRunner(
      int queue, List<Completion> done, List<ClaimedInstance> givenBack) {
    return new AttemptRunner(
        new SettableClock(Instant.ofEpochMilli(1_000)),
        1,
        queue,
        new QueueBound(Duration.ofMillis(200), givenBack::add),
        done::add);
  }

  /**
   * An attempt that ended keeps its lease renewed (it stays in {@link AttemptRunner#leased}) after
   * its outcome went to the recorder, until a renewal finds its row moved on ({@link
   * AttemptRunner#lost}); only then does it leave, and being settled it is not interrupted.
   */
  @Test
  void anEndedAttemptStaysLeasedUntilItsRowIsSeenToMoveOn() {
    List<Completion> done = new CopyOnWriteArrayList<>();
    try (AttemptRunner runner =
        new AttemptRunner(new SettableClock(Instant.ofEpochMilli(1_000)), 1, 4, done::add)) {
      runner.submit(claimed("ended@9"), oneMinuteTask("quick", "noop"), noop());
      await().atMost(Duration.ofSeconds(10)).until(() -> done.size() == 1);

      assertThat(runner.leased()).as("outcome not seen recorded yet").contains(key("ended@9"));
      assertThat(runner.inFlight()).as("its worker's room is free").isZero();

      assertThat(runner.lost(key("ended@9"), "its outcome is recorded")).isFalse();
      assertThat(runner.leased()).isEmpty();
    }
  }

  /**
   * An attempt settled here whose outcome the database never took is forgotten once it settled
   * before the cut-off the renewer gives (a lease of reachable database ago); later ones stay.
   */
  @Test
  void settledAttemptsAreForgottenOnlyPastTheCutOff() {
    List<Completion> done = new CopyOnWriteArrayList<>();
    SettableClock clock = new SettableClock(Instant.ofEpochMilli(1_000));
    try (AttemptRunner runner = new AttemptRunner(clock, 1, 4, done::add)) {
      runner.submit(claimed("old@9"), oneMinuteTask("quick", "noop"), noop());
      await().atMost(Duration.ofSeconds(10)).until(() -> done.size() == 1);
      clock.set(Instant.ofEpochMilli(5_000));
      runner.submit(claimed("new@9"), oneMinuteTask("quick", "noop"), noop());
      await().atMost(Duration.ofSeconds(10)).until(() -> done.size() == 2);

      assertThat(runner.forgetSettledBefore(4_999)).containsExactly(key("old@9"));
      assertThat(runner.leased()).containsExactly(key("new@9"));
    }
  }

  /**
   * A renewal that finds a running attempt's row someone else's interrupts it, recording nothing.
   */
  @Test
  void aRunningAttemptWhoseRowIsLostIsInterruptedAndNotRecorded() {
    List<Completion> done = new CopyOnWriteArrayList<>();
    BlockingExecutor blocking = new BlockingExecutor();
    try (AttemptRunner runner =
        new AttemptRunner(new SettableClock(Instant.ofEpochMilli(1_000)), 1, 4, done::add)) {
      runner.submit(claimed("lost@9"), oneMinuteTask("blocked", "block"), blocking);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> BlockingExecutor.STARTED.contains("lost@9"));

      assertThat(runner.lost(key("lost@9"), "it was taken back")).isTrue();

      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> BlockingExecutor.INTERRUPTED.contains("lost@9"));
      assertThat(runner.leased()).isEmpty();
      assertThat(done).as("the row is someone else's: nothing recorded").isEmpty();
    }
  }

  private static RunKey key(String instanceId) {
    return new RunKey(instanceId, 1);
  }

  private static NoopExecutor noop() {
    return new NoopExecutor();
  }

  /** A task of the default group running in-process {@code handler}, with a 1-minute timeout. */
  private static StoredTask oneMinuteTask(String taskId, String handler) {
    return task(taskId, handler, Duration.ofMinutes(1));
  }

  /** A task of the default group running in-process {@code handler} with {@code timeout}. */
  private static StoredTask task(String taskId, String handler, Duration timeout) {
    return TestTasks.stored(
        TestTasks.spec(
            taskId,
            "default",
            Trigger.Once.after(Duration.ofMillis(1)),
            ExecutorSpec.inProcess(handler),
            timeout,
            RetryPolicy.DEFAULT,
            Map.of()));
  }

  private static ClaimedInstance claimed(String id) {
    return new ClaimedInstance(id, "blocked", 1, 1, 1_000, 1_000, "trace", 0, 0, id, 0);
  }

  @Test
  void anErrorOfAnySizeIsCutToWhatTheInstanceStores() {
    String huge = "x".repeat(5_000_000);

    String cut = Ending.bounded(huge);

    assertThat(cut).startsWith("x".repeat(Ending.MAX_ERROR_CHARS)).endsWith("cut)");
    assertThat(cut.length()).isLessThan(Ending.MAX_ERROR_CHARS + 64);
    assertThat(Ending.bounded("short")).isEqualTo("short");
    assertThat(Ending.bounded(null)).isNull();
  }
}
