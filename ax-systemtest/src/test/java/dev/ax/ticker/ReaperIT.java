package dev.ax.ticker;

import static dev.ax.ticker.InstanceAssertions.assertLastMove;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.contract.TaskDueEvent;
import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.RetryPolicy;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.model.TriggerType;
import dev.ax.common.stage.StageContext;
import dev.ax.common.store.AuditLog;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.LeaseStore;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.Outcome;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.RawSql;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TestTasks;
import dev.ax.common.testing.TopicReader;
import dev.ax.common.time.SaturatingMillis;
import dev.ax.dispatcher.store.ClaimStore;
import dev.ax.dispatcher.store.OutcomeStore;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The reaper on a real database: it takes back dead runs and re-emits lost due events. */
@ExtendWith(AxInfraExtension.class)
class ReaperIT {

  private static final Duration DEADLINE = Duration.ofSeconds(30);

  /** So that each case of the reaper's comes about well within {@link #DEADLINE}. */
  static final Map<String, String> FAST_REAPER = FastReaper.SETTINGS;

  private static String store(TestRuntime runtime, String taskId, long dueAtMs) {
    TaskSpec spec = TestTasks.onceNoop(taskId);
    new TaskStore(runtime.dataSource())
        .create(List.of(new NewTask(spec, "trace", dueAtMs)), "test", dueAtMs);
    return InstanceIds.of(taskId, dueAtMs);
  }

  @Test
  void aRunWhoseDispatcherDiedIsTakenBackAsTheNextAttemptAndTheSlowOneCannotRecord(AxTestEnv env) {
    try (TestRuntime runtime =
        TestRuntime.open(
            env, Map.of("AX_REAPER_INTERVAL", "200ms", "AX_TICKER_HEARTBEAT", "500ms"))) {
      long now = runtime.clock().millis();
      String id = store(runtime, "dead-run", now - 1000);
      InstanceStore instances = new InstanceStore(runtime.dataSource());
      ClaimStore claimStore = new ClaimStore(runtime.dataSource());
      OutcomeStore outcomeStore = new OutcomeStore(runtime.dataSource());
      runtime.markDispatchedAsLeader("old-ticker", List.of(id), now - 900);
      assertThat(claimStore.claim(List.of(id), "dead-dispatcher", now + 300, now - 800)).hasSize(1);

      try (TickerStage ticker =
              new TickerStage(runtime.context("ticker-1"), TickerConfig.from(runtime.config()))
                  .start();
          TopicReader due = new TopicReader(runtime.bootstrapServers(), runtime.topics().due())) {
        await().atMost(DEADLINE).until(() -> !due.poll().isEmpty());
        TaskDueEvent event = AxJson.read(due.poll().get(0).value(), TaskDueEvent.class);
        assertThat(event.instanceId()).isEqualTo(id);
        assertThat(event.epoch()).isPositive();
      }

      assertThat(instances.find(id).orElseThrow().status()).isEqualTo(InstanceStatus.DISPATCHED);
      assertLastMove(
          runtime, id, InstanceStatus.RUNNING, InstanceStatus.DISPATCHED, "lease expired");
      Outcome late = new Outcome(id, "dead-run", 1, InstanceStatus.SUCCESS, null, now);
      assertThat(outcomeStore.recordOutcomes(List.of(late), "dead-dispatcher", now).lost())
          .as("the slow dispatcher's outcome")
          .containsExactly(late);
      assertThat(claimStore.claim(List.of(id), "live-dispatcher", now + 60_000, now))
          .singleElement()
          .satisfies(
              c -> {
                assertThat(c.attempt()).isEqualTo(2);
                // Counted as a take-back, so attempt 1 used up none of the task's retries.
                assertThat(c.takenBack()).isEqualTo(1);
                assertThat(c.failedInBudgetIfThisFails()).isEqualTo(1);
              });
    }
  }

  @Test
  void anExpiredRunOfAPausedTaskIsHeldAndOfACancelledTaskStopped(AxTestEnv env) throws Exception {
    try (TestRuntime runtime =
        TestRuntime.open(
            env, Map.of("AX_REAPER_INTERVAL", "200ms", "AX_TICKER_HEARTBEAT", "500ms"))) {
      long now = runtime.clock().millis();
      InstanceStore instances = new InstanceStore(runtime.dataSource());
      ClaimStore claimStore = new ClaimStore(runtime.dataSource());
      Map<String, String> idByState = new java.util.LinkedHashMap<>();
      for (String state : List.of("ACTIVE", "PAUSED", "CANCELLED", "DELETED")) {
        String taskId = "expired-" + state.toLowerCase(java.util.Locale.ROOT);
        String id = store(runtime, taskId, now - 1000);
        runtime.markDispatchedAsLeader("old-ticker", List.of(id), now - 900);
        assertThat(claimStore.claim(List.of(id), "dead-dispatcher", now + 300, now - 800))
            .hasSize(1);
        // The state as a lifecycle command leaves it when the run is under way.
        RawSql.execute(
            runtime.dataSource(),
            "UPDATE ax_task SET state = '" + state + "' WHERE task_id = '" + taskId + "'");
        idByState.put(state, id);
      }

      try (TickerStage ticker =
          new TickerStage(runtime.context("ticker-1"), TickerConfig.from(runtime.config()))
              .start()) {
        await()
            .atMost(DEADLINE)
            .until(
                () ->
                    idByState.values().stream()
                        .noneMatch(
                            id ->
                                instances.find(id).orElseThrow().status()
                                    == InstanceStatus.RUNNING));
      }

      assertThat(instances.find(idByState.get("ACTIVE")).orElseThrow().status())
          .isEqualTo(InstanceStatus.DISPATCHED);
      assertLastMove(
          runtime,
          idByState.get("PAUSED"),
          InstanceStatus.RUNNING,
          InstanceStatus.PAUSED,
          "a RESUME fires the next attempt");
      for (String state : List.of("CANCELLED", "DELETED")) {
        assertLastMove(
            runtime,
            idByState.get(state),
            InstanceStatus.RUNNING,
            InstanceStatus.CANCELLED,
            "not run again");
      }
    }
  }

  @Test
  void aFixedDelayChainWhoseCompletionEventWasLostIsRepaired(AxTestEnv env) {
    try (TestRuntime runtime = TestRuntime.open(env, FAST_REAPER)) {
      long now = runtime.clock().millis();
      InstanceStore instances = new InstanceStore(runtime.dataSource());
      long finishedAtMs = now - 60_000;
      // The run ended and was recorded, but its completion event never reached the chainer.
      endedFixedDelayRun(runtime, "every-hour-after", Duration.ofHours(1), finishedAtMs);

      try (TickerStage ticker =
          new TickerStage(runtime.context("ticker-1"), TickerConfig.from(runtime.config()))
              .start()) {
        String next = InstanceIds.of("every-hour-after", finishedAtMs + 3_600_000);
        await().atMost(DEADLINE).until(() -> instances.find(next).isPresent());
        assertThat(instances.find(next).orElseThrow().status()).isEqualTo(InstanceStatus.SCHEDULED);
      }
    }
  }

  @Test
  void anInstanceDispatchedButNeverClaimedIsEmittedAgain(AxTestEnv env) {
    try (TestRuntime runtime = TestRuntime.open(env, FAST_REAPER)) {
      long now = runtime.clock().millis();
      String id = store(runtime, "lost-event", now - 5000);
      runtime.markDispatchedAsLeader("crashed-ticker", List.of(id), now - 4000);
      AuditLog audit = new AuditLog(runtime.dataSource());

      try (TickerStage ticker =
              new TickerStage(runtime.context("ticker-1"), TickerConfig.from(runtime.config()))
                  .start();
          TopicReader due = new TopicReader(runtime.bootstrapServers(), runtime.topics().due())) {
        // The takeover emits it again at once; nobody claims that either, so 2 s later the
        // unclaimed bound emits it once more.
        await()
            .atMost(DEADLINE)
            .until(
                () -> {
                  // One read: the history may grow between two.
                  List<AuditLog.Transition> history = audit.history(id);
                  return history.get(history.size() - 1).reason().contains("not claimed in time");
                });
        await().atMost(DEADLINE).until(() -> due.poll().size() >= 2);
        assertThat(due.poll())
            .extracting(r -> AxJson.read(r.value(), TaskDueEvent.class).instanceId())
            .containsOnly(id);
      }

      assertThat(audit.history(id))
          .extracting(AuditLog.Transition::to)
          .startsWith(
              InstanceStatus.SCHEDULED, InstanceStatus.DISPATCHED, InstanceStatus.DISPATCHED)
          .containsOnly(InstanceStatus.SCHEDULED, InstanceStatus.DISPATCHED);
    }
  }

  @Test
  void whatAPreviousLeaderDispatchedAndNobodyClaimedIsEmittedAgainAtOnceAtTheNewEpoch(
      AxTestEnv env) {
    try (TestRuntime runtime = TestRuntime.open(env, Map.of("AX_TICKER_HEARTBEAT", "500ms"))) {
      long now = runtime.clock().millis();
      String id = store(runtime, "inherited", now);
      runtime.markDispatchedAsLeader("old-ticker", List.of(id), now);
      long oldEpoch =
          new LeaseStore(runtime.dataSource()).current(LeaseFence.TICKER).orElseThrow().epoch();

      try (TickerStage ticker =
              new TickerStage(runtime.context("ticker-1"), TickerConfig.from(runtime.config()))
                  .start();
          TopicReader due = new TopicReader(runtime.bootstrapServers(), runtime.topics().due())) {
        // Default reaper settings (5 s passes, 30 s unclaimed bound): only the takeover emits it.
        await().atMost(Duration.ofSeconds(10)).until(() -> !due.poll().isEmpty());
        TaskDueEvent event = AxJson.read(due.poll().get(0).value(), TaskDueEvent.class);
        assertThat(event.instanceId()).isEqualTo(id);
        assertThat(event.epoch()).isGreaterThan(oldEpoch);
      }

      assertLastMove(
          runtime, id, InstanceStatus.DISPATCHED, InstanceStatus.DISPATCHED, "previous leader");
    }
  }

  /**
   * A FIXED_DELAY interval near Long.MAX_VALUE (stored before the reader bounded it) used to make
   * the chainer throw "long overflow" on every redelivery of its batch. Both the chainer and the
   * reaper now park the chain at the far-future bound, and the chainer goes on with the rest.
   */
  @Test
  void hugeFixedDelayIntervalsParkTheChainInsteadOfStoppingTheChainerOrTheReaper(AxTestEnv env)
      throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env, FAST_REAPER)) {
      long now = runtime.clock().millis();
      Duration huge = Duration.ofMillis(Long.MAX_VALUE);
      InstanceStore instances = new InstanceStore(runtime.dataSource());
      // Lost completion event, ended a minute ago: the reaper's case.
      endedFixedDelayRun(runtime, "huge-lost", huge, now - 60_000);
      // Completion events on the topic: the chainer's case, a huge one before a normal one.
      String hugeRun = endedFixedDelayRun(runtime, "huge-chained", huge, now);
      String hourlyRun = endedFixedDelayRun(runtime, "hourly", Duration.ofHours(1), now);
      try (KafkaProducer<String, byte[]> producer =
          KafkaClients.producer(runtime.kafka(), "test-completions")) {
        for (String[] run : new String[][] {{"huge-chained", hugeRun}, {"hourly", hourlyRun}}) {
          TaskCompletedEvent event =
              new TaskCompletedEvent(
                  AxJson.VERSION,
                  run[0],
                  run[1],
                  1,
                  InstanceStatus.SUCCESS,
                  now,
                  now,
                  now,
                  now,
                  0,
                  0,
                  "tr",
                  null,
                  "disp",
                  InstanceStatus.SUCCESS,
                  null,
                  TriggerType.FIXED_DELAY,
                  null);
          producer
              .send(new ProducerRecord<>(runtime.topics().completed(), run[0], AxJson.write(event)))
              .get();
        }
      }

      StageContext context = runtime.context("ticker-1");
      try (TickerStage ticker =
          new TickerStage(context, TickerConfig.from(runtime.config())).start()) {
        String hourlyNext = InstanceIds.of("hourly", now + 3_600_000);
        await().atMost(DEADLINE).until(() -> instances.find(hourlyNext).isPresent());
        for (String taskId : List.of("huge-chained", "huge-lost")) {
          String parked = InstanceIds.of(taskId, SaturatingMillis.FAR_FUTURE_MS);
          await().atMost(DEADLINE).until(() -> instances.find(parked).isPresent());
          assertThat(instances.find(parked).orElseThrow().status())
              .isEqualTo(InstanceStatus.SCHEDULED);
        }
        // Parked is not broken: the reaper leaves the chains alone from then on.
        double repaired = context.meters().counter("ax.reaper.chains.repaired").count();
        await()
            .during(Duration.ofSeconds(1))
            .atMost(Duration.ofSeconds(5))
            .until(() -> context.meters().counter("ax.reaper.chains.repaired").count() == repaired);
        assertThat(instances.findByTask("huge-lost")).hasSize(2);
      }
    }
  }

  /** A FIXED_DELAY task whose first run ended at {@code finishedAtMs}; returns that run's id. */
  private static String endedFixedDelayRun(
      TestRuntime runtime, String taskId, Duration interval, long finishedAtMs) {
    TaskSpec spec =
        TestTasks.spec(
            taskId,
            "default",
            new Trigger.FixedDelay(interval, null),
            ExecutorSpec.inProcess("noop"),
            Duration.ofSeconds(5),
            RetryPolicy.DEFAULT,
            Map.of());
    long dueAtMs = finishedAtMs - 10_000;
    new TaskStore(runtime.dataSource())
        .create(List.of(new NewTask(spec, "tr", dueAtMs)), "test", dueAtMs);
    String id = InstanceIds.of(taskId, dueAtMs);
    ClaimStore claimStore = new ClaimStore(runtime.dataSource());
    OutcomeStore outcomeStore = new OutcomeStore(runtime.dataSource());
    runtime.markDispatchedAsLeader("old-ticker", List.of(id), dueAtMs);
    claimStore.claim(List.of(id), "disp", finishedAtMs + 60_000, dueAtMs + 5);
    outcomeStore.recordOutcomes(
        List.of(new Outcome(id, taskId, 1, InstanceStatus.SUCCESS, null, finishedAtMs)),
        "disp",
        finishedAtMs);
    return id;
  }
}
