package dev.ax.common.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A bare consumer that collects everything on one topic from the beginning, as a user's application
 * would. Call {@link #poll()} inside an Awaitility condition. Not thread-safe.
 */
public final class TopicReader implements AutoCloseable {

  private final KafkaConsumer<String, byte[]> consumer;
  private final List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();

  public TopicReader(String bootstrap, String topic) {
    this(bootstrap, topic, "read_uncommitted");
  }

  /**
   * A reader that sees only records of committed transactions (and non-transactional ones), as AX's
   * stages read: what a transactional writer such as the resolver left in an aborted transaction is
   * not seen.
   */
  public static TopicReader committedOnly(String bootstrap, String topic) {
    return new TopicReader(bootstrap, topic, "read_committed");
  }

  private TopicReader(String bootstrap, String topic, String isolationLevel) {
    Properties props = new Properties();
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolationLevel);
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.GROUP_ID_CONFIG, "test-reader-" + UUID.randomUUID());
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    this.consumer = new KafkaConsumer<>(props);
    consumer.subscribe(List.of(topic));
  }

  /** Polls once and returns everything collected so far. */
  public List<ConsumerRecord<String, byte[]>> poll() {
    consumer.poll(Duration.ofMillis(200)).forEach(records::add);
    return List.copyOf(records);
  }

  @Override
  public void close() {
    consumer.close();
  }
}
