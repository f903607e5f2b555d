package dev.ax.dispatcher.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.kafka.LoopWatcher;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.Trigger;
import dev.ax.common.stage.StageContext;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.OutboxStore;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TestTasks;
import dev.ax.dispatcher.store.ClaimStore;
import dev.ax.dispatcher.store.ClaimedInstance;
import dev.ax.dispatcher.store.OutcomeStore;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.lang.reflect.Proxy;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The recorder on a real database: a poison outcome (one the database refuses, not from an outage)
 * is passed over and counted while the rest of its batch is recorded; at stop, outcomes the
 * database did not take are counted, not dropped silently.
 */
@ExtendWith(AxInfraExtension.class)
class OutcomeRecorderIT {

  private static final String OWNER = "disp-1";

  @Test
  void aPoisonOutcomeIsPassedOverAndCountedAndTheRestOfItsBatchRecorded(AxTestEnv env) {
    try (TestRuntime runtime = TestRuntime.open(env);
        KafkaProducer<String, byte[]> producer =
            KafkaClients.producer(runtime.kafka(), "recorder")) {
      StageContext context = runtime.context(OWNER);
      ClaimedInstance first = running(runtime, "rec-first");
      ClaimedInstance poison = running(runtime, "rec-poison");
      ClaimedInstance last = running(runtime, "rec-last");
      // A trace id longer than the outbox's headers column holds: the database refuses the row
      // (data too long), whatever the number of tries.
      ClaimedInstance refused = withTraceId(poison, "t".repeat(70_000));

      try (OutboxRelay relay = relay(context, producer);
          OutcomeRecorder recorder = recorder(context, relay)) {
        // Queued before the recorder starts: one batch.
        recorder.accept(success(first));
        recorder.accept(success(refused));
        recorder.accept(success(last));
        recorder.start();

        InstanceStore instances = new InstanceStore(runtime.dataSource());
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () -> {
                  assertThat(status(instances, first)).isEqualTo(InstanceStatus.SUCCESS);
                  assertThat(status(instances, last)).isEqualTo(InstanceStatus.SUCCESS);
                  assertThat(context.meters().counter("ax.dispatcher.outcome.parked").count())
                      .isEqualTo(1.0);
                });
        assertThat(status(instances, poison))
            .as("the poison's run is left to its lease and the reaper")
            .isEqualTo(InstanceStatus.RUNNING);
      }
    }
  }

  @Test
  void outcomesTheDatabaseDoesNotTakeAtStopAreCountedNotDroppedSilently(AxTestEnv env) {
    try (TestRuntime runtime = TestRuntime.open(env);
        KafkaProducer<String, byte[]> producer =
            KafkaClients.producer(runtime.kafka(), "recorder-stop")) {
      StageContext live = runtime.context(OWNER);
      StageContext away =
          new StageContext(
              live.common(),
              live.kafka(),
              live.topics(),
              databaseAway(),
              databaseAway(),
              live.clock(),
              OWNER,
              live.meters(),
              LoopWatcher.LOG_ONLY);
      ClaimedInstance one = running(runtime, "stop-one");
      ClaimedInstance two = running(runtime, "stop-two");

      try (OutboxRelay relay = relay(away, producer)) {
        OutcomeRecorder recorder = recorder(away, relay);
        recorder.accept(success(one));
        recorder.accept(success(two));
        recorder.start();
        recorder.close();
      }

      assertThat(away.meters().counter("ax.dispatcher.outcome.unrecorded.at.stop").count())
          .isEqualTo(2.0);
    }
  }

  private static OutboxRelay relay(StageContext context, KafkaProducer<String, byte[]> producer) {
    return new OutboxRelay(
        new OutboxStore(context.dataSource()),
        producer,
        RelaySchedule.every(Duration.ofSeconds(30), context.clock()),
        context.meters());
  }

  private static OutcomeRecorder recorder(StageContext context, OutboxRelay relay) {
    return new OutcomeRecorder(
        new OutcomeStore(context.dataSource()),
        relay,
        new OutcomePlanner(
            context.nodeId(),
            new RetryPlanner(() -> true, () -> 0.5),
            new OwedEvents(context.topics(), context.nodeId(), id -> false),
            context.clock()),
        context.meters());
  }

  /** A pool whose every connection times out, as while the database is away. */
  private static DataSource databaseAway() {
    return (DataSource)
        Proxy.newProxyInstance(
            OutcomeRecorderIT.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              throw new SQLTransientConnectionException("connection is not available (test)");
            });
  }

  /** Task {@code taskId}'s one instance, RUNNING as attempt 1 under {@link #OWNER}. */
  private static ClaimedInstance running(TestRuntime runtime, String taskId) {
    long nowMs = runtime.clock().millis();
    String id = InstanceIds.of(taskId, nowMs);
    new TaskStore(runtime.dataSource())
        .create(
            List.of(
                new NewTask(
                    TestTasks.noop(taskId, Trigger.Once.at(Instant.ofEpochMilli(nowMs))),
                    "trace-" + id,
                    nowMs)),
            "test",
            nowMs);
    runtime.markDispatchedAsLeader("ticker-test", List.of(id), nowMs);
    List<ClaimedInstance> claimed =
        new ClaimStore(runtime.dataSource()).claim(List.of(id), OWNER, nowMs + 600_000, nowMs);
    assertThat(claimed).hasSize(1);
    return claimed.get(0);
  }

  private static ClaimedInstance withTraceId(ClaimedInstance c, String traceId) {
    return new ClaimedInstance(
        c.instanceId(),
        c.taskId(),
        c.taskVersion(),
        c.attempt(),
        c.dueAtMs(),
        c.claimedAtMs(),
        traceId,
        c.retryBase(),
        c.seq(),
        c.flowRunId(),
        c.takenBack());
  }

  private static Completion success(ClaimedInstance claimed) {
    long nowMs = claimed.claimedAtMs();
    return Completion.succeeded(claimed, "default", nowMs, nowMs + 1);
  }

  private static InstanceStatus status(InstanceStore instances, ClaimedInstance claimed) {
    return instances.find(claimed.instanceId()).orElseThrow().status();
  }
}
