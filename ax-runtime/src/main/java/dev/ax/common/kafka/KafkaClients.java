package dev.ax.common.kafka;

import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The client settings every stage uses: keys are strings (the taskId), values raw bytes (JSON),
 * producers idempotent with acks=all, consumers commit by hand after the database has what they
 * read. Each client starts from its {@link KafkaConnection}'s settings (brokers, security) and AX's
 * own are put on top.
 */
public final class KafkaClients {

  /**
   * The largest request a producer sends: 2 MiB, twice Kafka's default. Ingest echoes a rejected
   * command with its original bytes plus headers, and a command may itself be as large as the
   * broker's default {@code message.max.bytes} (1 MiB); the echo must not fail in the producer for
   * that. What is still too large is sent without its value (see RejectedRecords).
   */
  public static final int MAX_REQUEST_SIZE_BYTES = 2 * 1024 * 1024;

  private KafkaClients() {}

  public static KafkaProducer<String, byte[]> producer(KafkaConnection kafka, String clientId) {
    return new KafkaProducer<>(producerProperties(kafka, clientId));
  }

  /**
   * A producer as {@link #producer(KafkaConnection, String)} that exports its metrics to {@code
   * meters}.
   */
  public static KafkaProducer<String, byte[]> producer(
      KafkaConnection kafka, String clientId, MeterRegistry meters) {
    return MeteredClients.producer(producerProperties(kafka, clientId), meters);
  }

  /**
   * A producer as {@link #producer(KafkaConnection, String, MeterRegistry)} whose every call blocks
   * at most {@code maxBlock} ({@code max.block.ms}, Kafka's default 60 s): waiting for a topic's
   * metadata, or for room in a full buffer while the broker is away. Past it the send fails
   * (through its callback, or by throwing) instead of holding up the caller's thread, for a caller
   * that owns something with a deadline (the dispatcher's recorder, whose attempts hold leases).
   */
  public static KafkaProducer<String, byte[]> producer(
      KafkaConnection kafka, String clientId, MeterRegistry meters, Duration maxBlock) {
    return MeteredClients.producer(producerProperties(kafka, clientId, maxBlock), meters);
  }

  /** The settings of a producer whose calls block at most {@code maxBlock}. */
  static Properties producerProperties(KafkaConnection kafka, String clientId, Duration maxBlock) {
    if (maxBlock.isNegative() || maxBlock.isZero()) {
      throw new IllegalArgumentException("maxBlock must be positive: " + maxBlock);
    }
    Properties props = producerProperties(kafka, clientId);
    props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(maxBlock.toMillis()));
    return props;
  }

  static Properties producerProperties(KafkaConnection kafka, String clientId) {
    Properties props = kafka.properties();
    props.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    props.put(ProducerConfig.LINGER_MS_CONFIG, "1");
    props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
    props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(MAX_REQUEST_SIZE_BYTES));
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return props;
  }

  /**
   * A consumer in group {@code groupId} that exports its metrics to {@code meters}, the group's lag
   * on its partitions among them ({@code kafka_consumer_fetch_manager_records_lag_max}).
   */
  public static KafkaConsumer<String, byte[]> consumer(
      KafkaConnection kafka,
      String groupId,
      String clientId,
      int maxPollRecords,
      MeterRegistry meters) {
    return MeteredClients.consumer(
        groupProperties(kafka, groupId, clientId, maxPollRecords), meters);
  }

  private static Properties groupProperties(
      KafkaConnection kafka, String groupId, String clientId, int maxPollRecords) {
    Properties props = consumerProperties(kafka, clientId, maxPollRecords);
    props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
    // A member that died (kill -9, lost host) gives its partitions up after 10 s, not Kafka's 45 s
    // default: a dispatcher's due events must not wait for a dead member that long.
    props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000");
    props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "3000");
    return props;
  }

  /**
   * As above, its metadata (and so a pattern subscription's matches) refreshed every {@code
   * metadataMaxAge} rather than Kafka's 5 minutes.
   */
  public static KafkaConsumer<String, byte[]> consumer(
      KafkaConnection kafka,
      String groupId,
      String clientId,
      int maxPollRecords,
      MeterRegistry meters,
      java.time.Duration metadataMaxAge) {
    Properties props = groupProperties(kafka, groupId, clientId, maxPollRecords);
    props.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, Long.toString(metadataMaxAge.toMillis()));
    return MeteredClients.consumer(props, meters);
  }

  /**
   * A consumer in no group, for a loop that assigns itself partitions and commits nothing ({@link
   * ConsumerLoop#everyPartitionFromEnd}).
   */
  public static KafkaConsumer<String, byte[]> groupless(
      KafkaConnection kafka, String clientId, int maxPollRecords, MeterRegistry meters) {
    return MeteredClients.consumer(consumerProperties(kafka, clientId, maxPollRecords), meters);
  }

  private static Properties consumerProperties(
      KafkaConnection kafka, String clientId, int maxPollRecords) {
    Properties props = kafka.properties();
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Integer.toString(maxPollRecords));
    // The broker answers a fetch as soon as a byte is there (fetch.min.bytes 1), so the wait only
    // bounds how often an idle consumer asks again: Kafka's default, not a latency knob.
    props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "500");
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return props;
  }

  public static Admin admin(KafkaConnection kafka) {
    return Admin.create(kafka.properties());
  }
}
