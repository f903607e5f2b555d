package dev.ax.dispatcher.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.kafka.RejectHeaders;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.Trigger;
import dev.ax.common.stage.StageContext;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.OutboxMessage;
import dev.ax.common.store.OutboxStore;
import dev.ax.common.store.Outcome;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TestTasks;
import dev.ax.common.testing.TopicReader;
import dev.ax.dispatcher.store.ClaimStore;
import dev.ax.dispatcher.store.ClaimedInstance;
import dev.ax.dispatcher.store.OutcomeStore;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The outbox on a real broker and database: an outcome is committed with its events, and a
 * dispatcher that died between that commit and the send loses none of them.
 */
@ExtendWith(AxInfraExtension.class)
class OutboxRelayIT {

  private static final Duration RELAY_AFTER = Duration.ofSeconds(1);

  @Test
  void eventsOfADispatcherThatDiedBeforeSendingAreRelayedByAnother(AxTestEnv env) {
    try (TestRuntime runtime = TestRuntime.open(env);
        KafkaProducer<String, byte[]> producer =
            KafkaClients.producer(runtime.kafka(), "survivor");
        TopicReader completed =
            new TopicReader(runtime.bootstrapServers(), runtime.topics().completed())) {
      OutboxStore outbox = new OutboxStore(runtime.dataSource());
      Run run = Run.start(runtime, "died-before-send", "dead-dispatcher");
      String id = run.id();

      // What the dead dispatcher did: commit the outcome with its event, and nothing more.
      assertThat(run.recordSuccess(UUID.randomUUID().toString(), "dead-dispatcher")).isTrue();
      assertThat(outbox.pending()).isEqualTo(1);

      try (OutboxRelay relay = startRelay(runtime, producer)) {
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> !ofKey(completed, "died-before-send").isEmpty() && outbox.pending() == 0);
        assertThat(ofKey(completed, "died-before-send"))
            .singleElement()
            .satisfies(
                r -> {
                  assertThat(r.key()).isEqualTo("died-before-send");
                  assertThat(new String(r.value(), StandardCharsets.UTF_8)).contains(id);
                  assertThat(
                          new String(
                              r.headers().lastHeader(RejectHeaders.TRACE_ID).value(),
                              StandardCharsets.UTF_8))
                      .isEqualTo("trace-" + id);
                });
      }
    }
  }

  @Test
  void aTakenBackOutcomeOwesNoEventAndASentBatchIsNotSentAgain(AxTestEnv env) {
    try (TestRuntime runtime = TestRuntime.open(env);
        KafkaProducer<String, byte[]> producer = KafkaClients.producer(runtime.kafka(), "live");
        TopicReader completed =
            new TopicReader(runtime.bootstrapServers(), runtime.topics().completed());
        OutboxRelay relay = startRelay(runtime, producer)) {
      InstanceStore instances = new InstanceStore(runtime.dataSource());
      OutboxStore outbox = new OutboxStore(runtime.dataSource());
      Run run = Run.start(runtime, "live-run", "disp-1");
      String id = run.id();

      assertThat(run.recordSuccess(UUID.randomUUID().toString(), "not-the-owner")).isFalse();
      assertThat(outbox.pending()).as("nothing owed by an outcome not recorded").isZero();

      String token = UUID.randomUUID().toString();
      assertThat(run.recordSuccess(token, "disp-1")).isTrue();
      relay.send(token, List.of(run.event()), (message, error) -> {});

      await().atMost(Duration.ofSeconds(30)).until(() -> outbox.pending() == 0);
      // Longer than RELAY_AFTER and a relay scan: a confirmed batch is not sent again.
      await()
          .during(RELAY_AFTER.multipliedBy(3))
          .atMost(RELAY_AFTER.multipliedBy(10))
          .until(() -> ofKey(completed, "live-run").size() == 1);
      assertThat(instances.find(id).orElseThrow().status()).isEqualTo(InstanceStatus.SUCCESS);
    }
  }

  /** A relay over the runtime's outbox, sending what is owed for longer than RELAY_AFTER. */
  private static OutboxRelay startRelay(
      TestRuntime runtime, KafkaProducer<String, byte[]> producer) {
    StageContext context = runtime.context("relay");
    return new OutboxRelay(
            new OutboxStore(context.dataSource()),
            producer,
            RelaySchedule.every(RELAY_AFTER, context.clock()),
            context.meters())
        .start();
  }

  private static List<ConsumerRecord<String, byte[]>> ofKey(TopicReader reader, String key) {
    return reader.poll().stream().filter(r -> key.equals(r.key())).toList();
  }

  /**
   * Attempt 1 of a one-shot task's instance, RUNNING under the owner it was claimed by, and the
   * completed event its success owes (keyed by task id, with its trace header).
   */
  private record Run(
      OutcomeStore outcomes, String taskId, String id, OutboxMessage event, long startedAtMs) {

    /**
     * Creates task {@code taskId} due now and takes its instance to RUNNING under {@code owner}.
     */
    static Run start(TestRuntime runtime, String taskId, String owner) {
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
          new ClaimStore(runtime.dataSource()).claim(List.of(id), owner, nowMs + 60_000, nowMs);
      assertThat(claimed).hasSize(1);
      OutboxMessage event =
          new OutboxMessage(
              runtime.topics().completed(),
              taskId,
              ("{\"instanceId\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8),
              Map.of(RejectHeaders.TRACE_ID, "trace-" + id));
      return new Run(new OutcomeStore(runtime.dataSource()), taskId, id, event, nowMs);
    }

    /**
     * Records this attempt as a SUCCESS by {@code owner}, owing {@link #event} under {@code token},
     * as a dispatcher commits it; whether it was recorded.
     */
    boolean recordSuccess(String token, String owner) {
      return !outcomes
          .recordOutcomes(
              List.of(new Outcome(id, taskId, 1, InstanceStatus.SUCCESS, null, startedAtMs)),
              List.of(List.of(event)),
              token,
              owner,
              startedAtMs)
          .recorded()
          .isEmpty();
    }
  }
}
