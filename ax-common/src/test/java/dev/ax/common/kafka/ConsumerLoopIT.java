package dev.ax.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The consumer loop's commits, on the real broker. */
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
  private static ConsumerLoop asyncCounting(
      AxTestEnv env, String topic, String group, AtomicInteger handled) {
    return new ConsumerLoop(
        "loop-" + group,
        KafkaClients.consumer(env.bootstrapServers(), group, "loop-" + group, 7),
        List.of(topic),
        records -> handled.addAndGet(records.count()),
        Duration.ofMillis(100),
        ConsumerLoop.CommitMode.ASYNC);
  }

  private static void produce(AxTestEnv env, String topic) {
    env.createTopics(Map.of(topic, 2));
    try (KafkaProducer<String, byte[]> producer =
        KafkaClients.producer(env.bootstrapServers(), "loop-test-producer")) {
      for (int i = 0; i < RECORDS; i++) {
        producer.send(new ProducerRecord<>(topic, "k" + i, new byte[] {1}));
      }
      producer.flush();
    }
  }

  private static long committedTotal(AxTestEnv env, String topic, String group) {
    try (KafkaConsumer<String, byte[]> reader =
        KafkaClients.consumer(env.bootstrapServers(), group, "loop-test-reader", 1)) {
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
