package dev.ax.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.kafka.ConsumerLoop.BatchHandler;
import dev.ax.common.testing.TopicReader;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The consumer loop's commits and its poison-record isolation, on the real broker. */
@ExtendWith(AxInfraExtension.class)
class ConsumerLoopIT {

  private static final int RECORDS = 200;

  @Test
  void asyncCommitsLeaveEverythingHandledCommittedWhenTheLoopStops(AxTestEnv env) throws Exception {
    String topic = env.topicPrefix() + "loop-async";
    String group = env.topicPrefix() + "loop-async-group";
    produce(env, topic);
    AtomicInteger handled = new AtomicInteger();
    ConsumerLoop loop = asyncCounting(env, topic, group, handled);
    loop.start();
    await().atMost(Duration.ofSeconds(30)).until(() -> handled.get() == RECORDS);
    loop.close();

    assertThat(committedTotal(env, topic, group))
        .as("committed offsets over both partitions")
        .isEqualTo(RECORDS);
  }

  @Test
  void anAsyncLoopCommitsItsLastBatchWhileIdleWithoutWaitingForMoreRecords(AxTestEnv env)
      throws Exception {
    String topic = env.topicPrefix() + "loop-idle";
    String group = env.topicPrefix() + "loop-idle-group";
    produce(env, topic);
    AtomicInteger handled = new AtomicInteger();
    try (ConsumerLoop loop = asyncCounting(env, topic, group, handled)) {
      loop.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> handled.get() == RECORDS);

      // Commits are spaced ASYNC_COMMIT_INTERVAL apart, so the last batches' offsets may not have
      // been sent when the records ran out: an idle poll must send them, not the next record.
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> committedTotal(env, topic, group) == RECORDS);
    }
  }

  /** An ASYNC loop over {@code topic} that counts what it handles, seven records a poll. */
  private ConsumerLoop asyncCounting(
      AxTestEnv env, String topic, String group, AtomicInteger handled) {
    return new ConsumerLoop(
        "loop-" + group,
        KafkaClients.consumer(
            KafkaConnection.plaintext(env.bootstrapServers()),
            group,
            "loop-" + group,
            7,
            new SimpleMeterRegistry()),
        List.of(topic),
        records -> handled.addAndGet(records.count()),
        Duration.ofMillis(100),
        ConsumerLoop.CommitMode.ASYNC,
        parking(env, topic + ".parked"),
        LoopWatcher.LOG_ONLY);
  }

  /**
   * A SYNC loop named {@code name} over {@code topic}, fifty records a poll, that parks what it
   * cannot handle in {@code topic + ".parked"}, counting into {@code parkedCount}.
   */
  private ConsumerLoop syncParking(
      AxTestEnv env,
      String name,
      String topic,
      String group,
      BatchHandler handler,
      Duration retryBackoff,
      Counter parkedCount) {
    return new ConsumerLoop(
        name,
        KafkaClients.consumer(
            KafkaConnection.plaintext(env.bootstrapServers()),
            group,
            name,
            50,
            new SimpleMeterRegistry()),
        List.of(topic),
        handler,
        retryBackoff,
        ConsumerLoop.CommitMode.SYNC,
        new RecordParking(producer(env), topic + ".parked", parkedCount),
        LoopWatcher.LOG_ONLY);
  }

  @Test
  void aRecordThatKeepsFailingIsParkedWithItsReasonAndEveryOtherRecordIsHandled(AxTestEnv env)
      throws Exception {
    String topic = env.topicPrefix() + "loop-poison";
    String group = env.topicPrefix() + "loop-poison-group";
    String parked = topic + ".parked";
    env.createTopics(Map.of(parked, 1));
    produce(env, topic, Set.of(17, 133));
    Set<String> handled = ConcurrentHashMap.newKeySet();
    AtomicInteger poisonTries = new AtomicInteger();
    Counter parkedCount = new SimpleMeterRegistry().counter("parked");
    BatchHandler handler =
        records -> {
          for (var record : records) {
            if (record.value()[0] == POISON) {
              poisonTries.incrementAndGet();
              throw new ArithmeticException("long overflow");
            }
          }
          records.forEach(r -> handled.add(r.key()));
        };
    try (ConsumerLoop loop =
            syncParking(
                env, "loop-poison", topic, group, handler, Duration.ofMillis(100), parkedCount);
        TopicReader parkedReader = new TopicReader(env.bootstrapServers(), parked)) {
      loop.start();
      await().atMost(Duration.ofSeconds(60)).until(() -> handled.size() == RECORDS - 2);
      List<ConsumerRecord<String, byte[]>> moved =
          await().atMost(Duration.ofSeconds(30)).until(parkedReader::poll, r -> r.size() >= 2);

      assertThat(moved).extracting(ConsumerRecord::key).containsExactlyInAnyOrder("k17", "k133");
      for (ConsumerRecord<String, byte[]> record : moved) {
        assertThat(record.value()).containsExactly(POISON);
        assertThat(header(record, RejectHeaders.REASON))
            .isEqualTo("internal error: java.lang.ArithmeticException: long overflow");
        assertThat(header(record, RejectHeaders.SOURCE_TOPIC)).isEqualTo(topic);
      }
      // Tried in its batch, then alone POISON_TRIES times; never again once parked.
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> committedTotal(env, topic, group) == RECORDS);
      assertThat(poisonTries.get())
          .isBetween(2 * ConsumerLoop.POISON_TRIES + 1, 2 * (ConsumerLoop.POISON_TRIES + 1));
      assertThat(parkedCount.count()).isEqualTo(2.0);
    }
  }

  @Test
  void anOutageParksNothingAndTheLoopResumesWhenItIsOver(AxTestEnv env) throws Exception {
    String topic = env.topicPrefix() + "loop-outage";
    String group = env.topicPrefix() + "loop-outage-group";
    String parked = topic + ".parked";
    env.createTopics(Map.of(parked, 1));
    produce(env, topic, Set.of());
    Set<String> handled = ConcurrentHashMap.newKeySet();
    // Longer than OUTAGES_BEFORE_SINGLES batch tries, so the one-at-a-time pass meets it too.
    AtomicInteger outageCallsLeft = new AtomicInteger(3 * ConsumerLoop.OUTAGES_BEFORE_SINGLES);
    Counter parkedCount = new SimpleMeterRegistry().counter("parked");
    BatchHandler handler =
        records -> {
          if (outageCallsLeft.getAndDecrement() > 0) {
            throw new StoreLikeException(
                new SQLTransientConnectionException("Connection is not available"));
          }
          records.forEach(r -> handled.add(r.key()));
        };
    try (ConsumerLoop loop =
            syncParking(
                env, "loop-outage", topic, group, handler, Duration.ofMillis(50), parkedCount);
        TopicReader parkedReader = new TopicReader(env.bootstrapServers(), parked)) {
      loop.start();
      await().atMost(Duration.ofSeconds(60)).until(() -> handled.size() == RECORDS);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> committedTotal(env, topic, group) == RECORDS);

      assertThat(outageCallsLeft.get()).isNegative();
      assertThat(parkedReader.poll()).isEmpty();
      assertThat(parkedCount.count()).isZero();
    }
  }

  @Test
  void aRecordTooLargeToParkWithItsValueIsParkedWithoutIt(AxTestEnv env) throws Exception {
    String parked = env.topicPrefix() + "loop-too-large.parked";
    env.createTopics(Map.of(parked, 1));
    byte[] huge = new byte[3 * 1024 * 1024];
    huge[0] = 42;
    ConsumerRecord<String, byte[]> record = new ConsumerRecord<>("source", 0, 7L, "big", huge);
    Counter parkedCount = new SimpleMeterRegistry().counter("parked");
    try (TopicReader reader = new TopicReader(env.bootstrapServers(), parked)) {
      new RecordParking(producer(env), parked, parkedCount)
          .park(record, new IllegalStateException("x".repeat(5000)));

      ConsumerRecord<String, byte[]> moved =
          await().atMost(Duration.ofSeconds(30)).until(reader::poll, r -> !r.isEmpty()).get(0);
      assertThat(moved.value()).isNull();
      assertThat(moved.key()).isEqualTo("big");
      assertThat(header(moved, RejectHeaders.VALUE_BYTES)).isEqualTo("3145728");
      assertThat(header(moved, RejectHeaders.VALUE_SHA256))
          .isEqualTo(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(huge)));
      assertThat(header(moved, RejectHeaders.SOURCE_OFFSET)).isEqualTo("7");
      assertThat(header(moved, RejectHeaders.REASON))
          .startsWith("internal error: java.lang.IllegalStateException: xxx")
          .hasSizeLessThan(300);
      assertThat(parkedCount.count()).isEqualTo(1.0);
    }
  }

  private static final byte POISON = 13;

  /** Wraps like the store does: the outage is the cause, not the exception itself. */
  private static final class StoreLikeException extends RuntimeException {
    StoreLikeException(Throwable cause) {
      super("store failed: " + cause.getMessage(), cause);
    }
  }

  private KafkaProducer<String, byte[]> producer(AxTestEnv env) {
    KafkaProducer<String, byte[]> producer =
        KafkaClients.producer(
            KafkaConnection.plaintext(env.bootstrapServers()), "loop-parking-" + UUID.randomUUID());
    producers.add(producer);
    return producer;
  }

  private RecordParking parking(AxTestEnv env, String topic) {
    return new RecordParking(producer(env), topic, new SimpleMeterRegistry().counter("parked"));
  }

  private final List<KafkaProducer<String, byte[]>> producers = new ArrayList<>();

  @AfterEach
  void closeProducers() {
    producers.forEach(KafkaProducer::close);
  }

  private static String header(ConsumerRecord<String, byte[]> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
  }

  private static void produce(AxTestEnv env, String topic, Set<Integer> poisonAt) {
    env.createTopics(Map.of(topic, 2));
    try (KafkaProducer<String, byte[]> producer =
        KafkaClients.producer(
            KafkaConnection.plaintext(env.bootstrapServers()), "loop-test-producer")) {
      for (int i = 0; i < RECORDS; i++) {
        ProducerRecord<String, byte[]> record =
            new ProducerRecord<>(topic, "k" + i, new byte[] {poisonAt.contains(i) ? POISON : 1});
        record.headers().add("origin", "test".getBytes(StandardCharsets.UTF_8));
        producer.send(record);
      }
      producer.flush();
    }
  }

  private static void produce(AxTestEnv env, String topic) {
    produce(env, topic, Set.of());
  }

  private static long committedTotal(AxTestEnv env, String topic, String group) {
    try (KafkaConsumer<String, byte[]> reader =
        KafkaClients.consumer(
            KafkaConnection.plaintext(env.bootstrapServers()),
            group,
            "loop-test-reader",
            1,
            new SimpleMeterRegistry())) {
      Set<TopicPartition> partitions =
          Set.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
      Map<TopicPartition, OffsetAndMetadata> committed = reader.committed(partitions);
      return committed.values().stream()
          .filter(java.util.Objects::nonNull)
          .mapToLong(OffsetAndMetadata::offset)
          .sum();
    }
  }
}
