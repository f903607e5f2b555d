package dev.ax.dispatcher.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.kafka.KafkaConnection;
import dev.ax.common.stage.StageContext;
import dev.ax.common.store.OutboxMessage;
import dev.ax.common.store.OutboxStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The relay on a real broker and database: a backlog of stale rows drains in one pass, not a claim
 * a second, and every send the broker refuses is counted by topic and error.
 */
@ExtendWith(AxInfraExtension.class)
class OutboxRelayDrainIT {

  private static final Duration RELAY_AFTER = Duration.ofSeconds(1);

  /** Longer than the test: only the first pass, and the passes it asks for, run. */
  private static final Duration NO_SCHEDULED_PASS = Duration.ofMinutes(10);

  @Test
  void aBacklogOfStaleRowsDrainsWithoutWaitingAScanPerClaim(AxTestEnv env) throws Exception {
    int rows = OutboxRelay.CLAIM_LIMIT * 2 + 300;
    try (TestRuntime runtime = TestRuntime.open(env);
        KafkaProducer<String, byte[]> producer = warmProducer(runtime, "drain")) {
      StageContext context = runtime.context("relay");
      List<OutboxMessage> backlog = new ArrayList<>();
      for (int i = 0; i < rows; i++) {
        backlog.add(message(runtime, "task-" + i, "{}".getBytes(StandardCharsets.UTF_8)));
      }
      insertStale(runtime, backlog);
      OutboxStore outbox = new OutboxStore(runtime.dataSource());
      assertThat(outbox.pending()).isEqualTo(rows);

      try (OutboxRelay relay = relay(context, producer).start()) {
        await().atMost(Duration.ofSeconds(30)).until(() -> outbox.pending() == 0);
      }
      assertThat(context.meters().counter("ax.outbox.resent").count()).isEqualTo(rows);
    }
  }

  @Test
  void aSendTheBrokerRefusesIsCountedByTopicAndError(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env);
        KafkaProducer<String, byte[]> producer = warmProducer(runtime, "too-large")) {
      StageContext context = runtime.context("relay");
      // Larger than the producer's max.request.size: refused for good.
      insertStale(runtime, List.of(message(runtime, "huge", new byte[2 * 1024 * 1024])));

      try (OutboxRelay relay = relay(context, producer).start()) {
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () -> {
                  Counter failed =
                      context
                          .meters()
                          .find("ax.outbox.send.failed.by.error")
                          .tag("topic", runtime.topics().completed())
                          .tag("error", "RecordTooLargeException")
                          .counter();
                  assertThat(failed).isNotNull();
                  assertThat(failed.count()).isEqualTo(1.0);
                });
      }
      assertThat(new OutboxStore(runtime.dataSource()).pending())
          .as("a refused row stays in the outbox")
          .isEqualTo(1);
    }
  }

  @Test
  void aBrokerThatIsAwayBlocksTheSenderForOneSendNotOnePerEvent(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env);
        KafkaProducer<String, byte[]> away =
            KafkaClients.producer(
                KafkaConnection.plaintext("127.0.0.1:1"),
                "away",
                new SimpleMeterRegistry(),
                Duration.ofMillis(300))) {
      OutboxRelay relay = relay(runtime.context("relay"), away);
      List<Exception> failures = new CopyOnWriteArrayList<>();
      byte[] payload = "{}".getBytes(StandardCharsets.UTF_8);

      relay.send(
          "batch-away",
          List.of(
              message(runtime, "a", payload),
              message(runtime, "b", payload),
              message(runtime, "c", payload)),
          (message, error) -> failures.add(error));

      assertThat(failures)
          .as("the first send timed out; the others were left to the relay, not tried")
          .singleElement()
          .isInstanceOf(org.apache.kafka.common.errors.TimeoutException.class);
    }
  }

  /**
   * A producer for a topic whose every partition has taken a record already: the topic was just
   * created, and a first burst of sends while its leaders are being elected can leave the embedded
   * broker refusing the producer's sequence numbers for minutes.
   */
  private static KafkaProducer<String, byte[]> warmProducer(TestRuntime runtime, String clientId)
      throws Exception {
    String topic = runtime.topics().completed();
    try (KafkaProducer<String, byte[]> warmUp =
        KafkaClients.producer(runtime.kafka(), clientId + "-warm-up")) {
      for (int partition = 0; partition < TestRuntime.PARTITIONS; partition++) {
        warmUp
            .send(new ProducerRecord<>(topic, partition, "warm-up", new byte[0]))
            .get(60, TimeUnit.SECONDS);
      }
    }
    return KafkaClients.producer(runtime.kafka(), clientId);
  }

  private static OutboxMessage message(TestRuntime runtime, String key, byte[] payload) {
    return new OutboxMessage(runtime.topics().completed(), key, payload, Map.of());
  }

  /** Writes {@code messages} as a batch committed ten minutes ago and never confirmed. */
  private static void insertStale(TestRuntime runtime, List<OutboxMessage> messages)
      throws Exception {
    long longAgoMs = runtime.clock().millis() - Duration.ofMinutes(10).toMillis();
    try (Connection connection = runtime.dataSource().getConnection()) {
      connection.setAutoCommit(false);
      OutboxStore.insert(connection, messages, UUID.randomUUID().toString(), longAgoMs);
      connection.commit();
    }
  }

  /** A relay over {@code context}'s outbox that passes on its own only after a test is over. */
  private static OutboxRelay relay(StageContext context, KafkaProducer<String, byte[]> producer) {
    return new OutboxRelay(
        new OutboxStore(context.dataSource()),
        producer,
        new RelaySchedule(RELAY_AFTER, NO_SCHEDULED_PASS, context.clock()),
        context.meters());
  }
}
