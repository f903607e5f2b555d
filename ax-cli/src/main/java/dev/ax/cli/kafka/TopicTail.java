package dev.ax.cli.kafka;

import dev.ax.common.kafka.KafkaConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads every partition of some topics from their beginning or from their current end, without a
 * consumer group (nothing is committed; a watcher must not take messages from anyone). How the CLI
 * watches {@code ax.task.completed} and {@code ax.task.commands.rejected}.
 *
 * <p>Not thread-safe, like the consumer it wraps: one thread polls and closes; {@link #wakeup()}
 * may be called from any thread to end a blocked {@link #poll}.
 */
public final class TopicTail implements AutoCloseable {

  /** Where reading starts. */
  public enum From {
    /** Everything the topics hold. */
    BEGINNING,
    /** Only what arrives after {@link #open} returned. */
    END
  }

  private static final Duration METADATA_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(2);

  private final KafkaConsumer<String, byte[]> consumer;

  private TopicTail(KafkaConsumer<String, byte[]> consumer) {
    this.consumer = consumer;
  }

  /**
   * Assigns every partition of {@code topics} and positions the consumer; returns once the
   * positions are fixed, so a message sent after this returns is seen even with {@link From#END}.
   *
   * @throws IllegalStateException when a topic does not exist
   */
  public static TopicTail open(KafkaConnection kafka, Collection<String> topics, From from) {
    Properties props = kafka.properties();
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, "ax-cli-tail-" + UUID.randomUUID());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props);
    try {
      List<TopicPartition> partitions = new ArrayList<>();
      for (String topic : topics) {
        List<PartitionInfo> infos = consumer.partitionsFor(topic, METADATA_TIMEOUT);
        if (infos == null || infos.isEmpty()) {
          throw new IllegalStateException("topic " + topic + " does not exist");
        }
        infos.forEach(info -> partitions.add(new TopicPartition(topic, info.partition())));
      }
      consumer.assign(partitions);
      if (from == From.BEGINNING) {
        consumer.seekToBeginning(partitions);
      } else {
        consumer.seekToEnd(partitions);
      }
      partitions.forEach(consumer::position); // resolve the lazy seek now
      return new TopicTail(consumer);
    } catch (RuntimeException e) {
      consumer.close(CloseOptions.timeout(Duration.ZERO));
      throw e;
    }
  }

  /** What arrived, waiting at most {@code timeout} for something; may be empty. */
  public List<ConsumerRecord<String, byte[]>> poll(Duration timeout) {
    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
    consumer.poll(timeout).forEach(records::add);
    return records;
  }

  /** Makes a blocked or the next {@link #poll} throw {@code WakeupException}. Any thread. */
  public void wakeup() {
    consumer.wakeup();
  }

  @Override
  public void close() {
    consumer.close(CloseOptions.timeout(CLOSE_TIMEOUT));
  }
}
