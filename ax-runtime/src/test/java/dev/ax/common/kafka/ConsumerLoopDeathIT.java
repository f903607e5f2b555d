package dev.ax.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.kafka.ConsumerLoop.BatchHandler;
import dev.ax.common.stage.LoopHealth;
import dev.ax.common.stage.Readiness;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A consumer loop never ends silently: an unexpected error that ends its thread makes the process
 * not ready and runs the process's death action; a refusal by the broker leaves it alive, not ready
 * with the reason, and it reads again once the refusal is over. On the real broker; the errors come
 * from the handler's {@code beforePoll}, which runs inside the loop's cycle as the poll does.
 */
@ExtendWith(AxInfraExtension.class)
class ConsumerLoopDeathIT {

  private static final int RECORDS = 20;

  private final LoopHealth health = new LoopHealth();
  private final List<String> deaths = new CopyOnWriteArrayList<>();
  private final Readiness readiness = new Readiness(Duration.ofMillis(100), System::nanoTime);
  private ConsumerLoop loop;
  private KafkaProducer<String, byte[]> parkingProducer;

  @AfterEach
  void close() {
    if (loop != null) {
      loop.close();
    }
    if (parkingProducer != null) {
      parkingProducer.close();
    }
    readiness.close();
  }

  @Test
  void aLoopThatDiesOfAnUnexpectedErrorMakesTheProcessNotReadyAndRunsTheDeathAction(AxTestEnv env) {
    String topic = env.topicPrefix() + "loop-death";
    produce(env, topic);
    health.onDeath((name, cause) -> deaths.add(name + " " + cause.getMessage()));
    readiness.add("consumer loops", health);
    readiness.start();
    AtomicInteger handled = new AtomicInteger();
    AtomicInteger polls = new AtomicInteger();
    BatchHandler handler =
        new BatchHandler() {
          @Override
          public void handle(ConsumerRecords<String, byte[]> records) {
            handled.addAndGet(records.count());
          }

          @Override
          public void beforePoll(KafkaConsumer<String, byte[]> consumer) {
            if (handled.get() == RECORDS && polls.incrementAndGet() == 3) {
              throw new IllegalStateException("a bug in the stage");
            }
          }
        };
    loop = loop(env, "loop-dies", topic, handler);
    loop.start();

    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(deaths).containsExactly("loop-dies a bug in the stage"));
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () -> {
              Readiness.Report report = readiness.report();
              assertThat(report.ready()).as("a process whose loop died is not ready").isFalse();
              assertThat(report.checks().get("consumer loops"))
                  .isEqualTo(
                      "loop-dies: stopped by an unexpected error:"
                          + " java.lang.IllegalStateException: a bug in the stage");
            });
  }

  @Test
  void aLoopRefusedByTheBrokerStaysAliveNotReadyAndReadsAgainOnceAuthorized(AxTestEnv env) {
    String topic = env.topicPrefix() + "loop-refused";
    produce(env, topic);
    health.onDeath((name, cause) -> deaths.add(name + " " + cause.getMessage()));
    List<Optional<String>> problemsSeen = new CopyOnWriteArrayList<>();
    AtomicInteger refusals = new AtomicInteger();
    AtomicInteger handled = new AtomicInteger();
    BatchHandler handler =
        new BatchHandler() {
          @Override
          public void handle(ConsumerRecords<String, byte[]> records) {
            handled.addAndGet(records.count());
          }

          @Override
          public void beforePoll(KafkaConsumer<String, byte[]> consumer) {
            problemsSeen.add(health.problem());
            // The first three polls are refused, as during an ACL change.
            if (refusals.incrementAndGet() <= 3) {
              throw new TopicAuthorizationException("not authorized to access " + topic);
            }
          }
        };
    loop = loop(env, "loop-refused", topic, handler);
    loop.start();

    await().atMost(Duration.ofSeconds(30)).until(() -> handled.get() == RECORDS);
    // A copy: the loop thread goes on adding, and a view of the live list would fail to iterate.
    assertThat(List.copyOf(problemsSeen).subList(1, 3))
        .as("while refused: not ready, with the loop's name and the reason")
        .allSatisfy(
            problem ->
                assertThat(problem)
                    .hasValueSatisfying(
                        line ->
                            assertThat(line)
                                .startsWith("loop-refused: refused by the broker:")
                                .contains("TopicAuthorizationException")));
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(() -> assertThat(health.problem()).as("read again: ready").isEmpty());
    assertThat(deaths).as("a refusal is no death").isEmpty();
  }

  @Test
  void theWaitAfterARefusalDoublesUpToItsBound() {
    BrokerRefusals refusals =
        new BrokerRefusals("loop", LoopWatcher.LOG_ONLY, Duration.ofSeconds(1));
    assertThat(refusals.waitAfter(1)).isEqualTo(Duration.ofSeconds(1));
    assertThat(refusals.waitAfter(2)).isEqualTo(Duration.ofSeconds(2));
    assertThat(refusals.waitAfter(5)).isEqualTo(Duration.ofSeconds(16));
    assertThat(refusals.waitAfter(6)).isEqualTo(BrokerRefusals.MAX_WAIT);
    assertThat(refusals.waitAfter(1_000)).isEqualTo(BrokerRefusals.MAX_WAIT);
  }

  private ConsumerLoop loop(AxTestEnv env, String name, String topic, BatchHandler handler) {
    KafkaConnection kafka = KafkaConnection.plaintext(env.bootstrapServers());
    parkingProducer = KafkaClients.producer(kafka, name + "-parking");
    return new ConsumerLoop(
        name,
        KafkaClients.consumer(kafka, env.topicPrefix() + name, name, 50, new SimpleMeterRegistry()),
        List.of(topic),
        handler,
        Duration.ofMillis(50),
        ConsumerLoop.CommitMode.SYNC,
        new RecordParking(
            parkingProducer, topic + ".parked", new SimpleMeterRegistry().counter("parked")),
        health);
  }

  private static void produce(AxTestEnv env, String topic) {
    env.createTopics(Map.of(topic, 1));
    try (KafkaProducer<String, byte[]> producer =
        KafkaClients.producer(KafkaConnection.plaintext(env.bootstrapServers()), topic + "-p")) {
      for (int i = 0; i < RECORDS; i++) {
        producer.send(new ProducerRecord<>(topic, "k" + i, new byte[] {1}));
      }
      producer.flush();
    }
  }
}
