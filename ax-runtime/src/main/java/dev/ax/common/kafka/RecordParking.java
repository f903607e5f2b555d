package dev.ax.common.kafka;

import dev.ax.common.contract.Echo;
import io.micrometer.core.instrument.Counter;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * Moves a record a stage cannot handle out of its way: onto a topic (ingest's {@code
 * ax.task.commands.rejected}, or the stage's {@code ax.parked.<stage>}) with its original key and
 * bytes, the reason in {@link RejectHeaders#REASON} ({@code internal error: <exception class>:
 * <message>}) and where it came from; one too large to send again goes without its value, as every
 * rejection does ({@link RejectedRecords}).
 *
 * <p>Thread-safe (the producer is); one instance per stage.
 */
public final class RecordParking {

  private final RejectedRecords records;
  private final String topic;
  private final Counter parked;

  /**
   * @param topic where parked records go
   * @param parked counts every record parked
   */
  public RecordParking(KafkaProducer<String, byte[]> producer, String topic, Counter parked) {
    this(producer, topic, source -> topic, parked);
  }

  /**
   * @param topic what {@link #topic()} names (for a per-source destination: the usual one)
   * @param topicOf where a record read from a topic is parked, by that topic's name
   */
  public RecordParking(
      KafkaProducer<String, byte[]> producer,
      String topic,
      java.util.function.UnaryOperator<String> topicOf,
      Counter parked) {
    this.records = new RejectedRecords(producer, topicOf, KafkaClients.MAX_REQUEST_SIZE_BYTES);
    this.topic = topic;
    this.parked = parked;
  }

  public String topic() {
    return topic;
  }

  /**
   * Sends {@code record} to the parking topic and waits for the broker.
   *
   * @throws Exception when the broker did not take it (an outage: see {@link TransientFailures})
   */
  public void park(ConsumerRecord<String, byte[]> record, Throwable cause) throws Exception {
    try {
      records.send(record, reasonOf(cause)).get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Exception failure) {
        throw failure;
      }
      throw e;
    }
    parked.increment();
  }

  /** {@code internal error: <class>: <message>}, the message {@linkplain Echo#cut cut}. */
  public static String reasonOf(Throwable cause) {
    Throwable root = cause;
    while (root.getCause() != null && root.getCause() != root && root.getMessage() == null) {
      root = root.getCause();
    }
    String message = root.getMessage() == null ? "" : Echo.cut(root.getMessage());
    return "internal error: " + root.getClass().getName() + ": " + message;
  }
}
