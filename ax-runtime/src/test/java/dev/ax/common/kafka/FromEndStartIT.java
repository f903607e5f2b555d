package dev.ax.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.awaitility.Awaitility.await;

import dev.ax.common.testing.TcpProxy;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A loop that reads every partition from the end ({@link ConsumerLoop#everyPartitionFromEnd}),
 * started while the broker does not answer: its bootstrap address is a relay that refuses every
 * connection until the test restores it. The real broker stays up behind it.
 */
@ExtendWith(AxInfraExtension.class)
class FromEndStartIT {

  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private static final Charset UTF8 = StandardCharsets.UTF_8;

  @Test
  void aStartWhileTheBrokerIsAwayGoesOnAndTheLoopReadsFromTheEndOnceItAnswers(AxTestEnv env)
      throws Exception {
    String topic = env.topicPrefix() + "from-end-late";
    env.createTopics(Map.of(topic, 2));
    List<String> read = new CopyOnWriteArrayList<>();
    AtomicInteger positionedLate = new AtomicInteger();
    try (KafkaProducer<String, byte[]> producer =
            KafkaClients.producer(KafkaConnection.plaintext(env.bootstrapServers()), "from-end");
        TcpProxy relay = TcpProxy.inFrontOfBroker(env.bootstrapServers())) {
      send(producer, topic, "before-start");
      relay.cut();
      ConsumerLoop loop = fromEnd(relay.bootstrapServers(), topic, producer, read, positionedLate);
      try {
        assertThatCode(loop::start)
            .as("a broker away at start fails no start")
            .doesNotThrowAnyException();
        assertThat(positionedLate).as("not positioned while the broker is away").hasValue(0);
        send(producer, topic, "while-away");

        relay.restore();
        await().atMost(DEADLINE).until(() -> positionedLate.get() == 1);
        send(producer, topic, "after-positions");

        await().atMost(DEADLINE).until(() -> read.contains("after-positions"));
        assertThat(read)
            .as("from the end as it was when the positions were fixed, nothing before")
            .containsExactly("after-positions");
        assertThat(positionedLate).hasValue(1);
      } finally {
        loop.close();
      }
    }
  }

  @Test
  void aStartWhileTheBrokerAnswersReadsWhatIsWrittenAfterItAndCallsNothingLate(AxTestEnv env)
      throws Exception {
    String topic = env.topicPrefix() + "from-end-on-time";
    env.createTopics(Map.of(topic, 2));
    List<String> read = new CopyOnWriteArrayList<>();
    AtomicInteger positionedLate = new AtomicInteger();
    try (KafkaProducer<String, byte[]> producer =
        KafkaClients.producer(KafkaConnection.plaintext(env.bootstrapServers()), "from-end")) {
      send(producer, topic, "before-start");
      ConsumerLoop loop = fromEnd(env.bootstrapServers(), topic, producer, read, positionedLate);
      try {
        loop.start();
        send(producer, topic, "after-start");

        await().atMost(DEADLINE).until(() -> read.contains("after-start"));
        assertThat(read).containsExactly("after-start");
        assertThat(positionedLate).hasValue(0);
      } finally {
        loop.close();
      }
    }
  }

  /**
   * A loop over {@code topic} from the end, reading through {@code bootstrap}, into {@code read}.
   */
  private static ConsumerLoop fromEnd(
      String bootstrap,
      String topic,
      KafkaProducer<String, byte[]> producer,
      List<String> read,
      AtomicInteger positionedLate) {
    return ConsumerLoop.everyPartitionFromEnd(
        topic,
        KafkaClients.groupless(
            KafkaConnection.plaintext(bootstrap), topic, 100, new SimpleMeterRegistry()),
        topic,
        records -> records.forEach(r -> read.add(new String(r.value(), UTF8))),
        Duration.ofMillis(200),
        new RecordParking(producer, topic + ".parked", new SimpleMeterRegistry().counter("parked")),
        positionedLate::incrementAndGet,
        LoopWatcher.LOG_ONLY);
  }

  private static void send(KafkaProducer<String, byte[]> producer, String topic, String value)
      throws Exception {
    producer.send(new ProducerRecord<>(topic, value, value.getBytes(UTF8))).get();
  }
}
