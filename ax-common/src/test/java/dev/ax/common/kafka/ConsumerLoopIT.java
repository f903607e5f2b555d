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
    env.createTopics(Map.of(topic, 2));
    try (KafkaProducer<String, byte[]> producer =
        KafkaClients.producer(env.bootstrapServers(), "loop-test-producer")) {
      for (int i = 0; i < RECORDS; i++) {
        producer.send(new ProducerRecord<>(topic, "k" + i, new byte[] {1}));
      }
      producer.flush();
    }
    AtomicInteger handled = new AtomicInteger();
    ConsumerLoop loop =
        new ConsumerLoop(
            "loop-test",
            KafkaClients.consumer(env.bootstrapServers(), group, "loop-test", 7),
            List.of(topic),
            records -> handled.addAndGet(records.count()),
            Duration.ofMillis(100),
            ConsumerLoop.CommitMode.ASYNC);
    loop.start();
    await().atMost(Duration.ofSeconds(30)).until(() -> handled.get() == RECORDS);
    loop.close();

    try (KafkaConsumer<String, byte[]> reader =
        KafkaClients.consumer(env.bootstrapServers(), group, "loop-test-reader", 1)) {
      Set<TopicPartition> partitions =
          Set.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
      Map<TopicPartition, OffsetAndMetadata> committed = reader.committed(partitions);
      long total = committed.values().stream().mapToLong(OffsetAndMetadata::offset).sum();
      assertThat(total).as("committed offsets over both partitions").isEqualTo(RECORDS);
    }
  }
}
