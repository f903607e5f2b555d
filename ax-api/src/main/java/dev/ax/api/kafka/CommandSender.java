package dev.ax.api.kafka;

import dev.ax.common.kafka.KafkaConnection;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Sends task commands the way any producer would: a plain {@link KafkaProducer}, key = taskId,
 * value = the JSON bytes, nothing AX-specific. Unlike the stages' producers it gives up quickly
 * ({@value #GIVE_UP_MS} ms) when the broker cannot be reached, since a person is waiting.
 *
 * <p>Thread-safe, like the producer it wraps.
 */
public final class CommandSender implements AutoCloseable {

  private static final int GIVE_UP_MS = 10_000;
  private static final int REQUEST_TIMEOUT_MS = 5_000;

  private final KafkaProducer<String, byte[]> producer;
  private final String bootstrapServers;

  private CommandSender(KafkaProducer<String, byte[]> producer, String bootstrapServers) {
    this.producer = producer;
    this.bootstrapServers = bootstrapServers;
  }

  public static CommandSender open(KafkaConnection kafka, String clientId) {
    Properties props = kafka.properties();
    props.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Integer.toString(GIVE_UP_MS));
    props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Integer.toString(REQUEST_TIMEOUT_MS));
    props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Integer.toString(GIVE_UP_MS));
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return new CommandSender(new KafkaProducer<>(props), kafka.bootstrapServers());
  }

  /** Sends {@code record} as it is, headers included, without waiting. */
  public Future<RecordMetadata> sendAsync(ProducerRecord<String, byte[]> record) {
    return producer.send(record);
  }

  /** Sends without waiting; the future completes when the broker has the message. */
  public Future<RecordMetadata> sendAsync(String topic, String key, byte[] value) {
    return producer.send(new ProducerRecord<>(topic, key, value));
  }

  /**
   * Sends and waits for the broker's acknowledgement.
   *
   * @throws SendFailedException when the broker cannot be reached or refuses the message
   */
  public RecordMetadata send(String topic, String key, byte[] value) throws InterruptedException {
    return await(sendAsync(topic, key, value));
  }

  /**
   * Waits for one send started by {@link #sendAsync}.
   *
   * @throws SendFailedException when it failed
   */
  public RecordMetadata await(Future<RecordMetadata> send) throws InterruptedException {
    try {
      return send.get(GIVE_UP_MS + REQUEST_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new SendFailedException(
          "could not send to Kafka at " + bootstrapServers + ": " + e.getCause().getMessage(),
          e.getCause());
    } catch (TimeoutException e) {
      throw new SendFailedException(
          "no answer from Kafka at " + bootstrapServers + " within " + GIVE_UP_MS + " ms", e);
    }
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(5));
  }

  /** A command did not reach the broker. */
  public static final class SendFailedException extends RuntimeException {
    SendFailedException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
