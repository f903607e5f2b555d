package dev.ax.common.kafka;

import io.micrometer.core.instrument.Counter;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves a record a stage cannot handle out of its way: onto a topic (ingest's {@code
 * ax.task.commands.rejected}, or the stage's {@code ax.parked.<stage>}) with its original key,
 * bytes and headers, the reason in {@link RejectHeaders#REASON} ({@code internal error: <exception
 * class>: <message>}) and where it came from. A record too large to send again with its value is
 * sent without it: reason, source and {@link #ORIGINAL_SHA256} / {@link #ORIGINAL_BYTES} of the
 * original, so that parking never loops on the size of what it parks.
 *
 * <p>Thread-safe (the producer is); one instance per stage.
 */
public final class RecordParking {

  /** Hex SHA-256 of the original value, on a record parked without it. */
  public static final String ORIGINAL_SHA256 = "ax.original.sha256";

  /** The original value's length in bytes, on a record parked without it. */
  public static final String ORIGINAL_BYTES = "ax.original.bytes";

  /** At most this many characters of an exception's message go into a reason. */
  public static final int MAX_MESSAGE_CHARS = 200;

  private static final Logger log = LoggerFactory.getLogger(RecordParking.class);

  private final KafkaProducer<String, byte[]> producer;
  private final String topic;
  private final Counter parked;

  /**
   * @param topic where parked records go
   * @param parked counts every record parked
   */
  public RecordParking(KafkaProducer<String, byte[]> producer, String topic, Counter parked) {
    this.producer = producer;
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
    String reason = reasonOf(cause);
    try {
      send(withValue(record, reason));
    } catch (RecordTooLargeException e) {
      log.warn(
          "Parked record from {}-{}@{} is too large to send again ({}); parking it without its"
              + " value",
          record.topic(),
          record.partition(),
          record.offset(),
          e.getMessage());
      send(withoutValue(record, reason));
    }
    parked.increment();
  }

  private void send(ProducerRecord<String, byte[]> out) throws Exception {
    try {
      producer.send(out).get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Exception cause) {
        throw cause;
      }
      throw e;
    }
  }

  /** {@code internal error: <class>: <message>}, the message's first line capped. */
  public static String reasonOf(Throwable cause) {
    Throwable root = cause;
    while (root.getCause() != null && root.getCause() != root && root.getMessage() == null) {
      root = root.getCause();
    }
    String message = root.getMessage() == null ? "" : root.getMessage();
    int newline = message.indexOf('\n');
    if (newline >= 0) {
      message = message.substring(0, newline);
    }
    if (message.length() > MAX_MESSAGE_CHARS) {
      message = message.substring(0, MAX_MESSAGE_CHARS) + "...";
    }
    return "internal error: " + root.getClass().getName() + ": " + message;
  }

  private ProducerRecord<String, byte[]> withValue(
      ConsumerRecord<String, byte[]> record, String reason) {
    ProducerRecord<String, byte[]> out = new ProducerRecord<>(topic, record.key(), record.value());
    for (Header header : record.headers()) {
      out.headers().add(header);
    }
    addSource(out.headers(), record, reason);
    return out;
  }

  private ProducerRecord<String, byte[]> withoutValue(
      ConsumerRecord<String, byte[]> record, String reason) {
    ProducerRecord<String, byte[]> out = new ProducerRecord<>(topic, keyOrNull(record), null);
    addSource(out.headers(), record, reason);
    byte[] value = record.value() == null ? new byte[0] : record.value();
    out.headers().add(ORIGINAL_SHA256, utf8(sha256Hex(value)));
    out.headers().add(ORIGINAL_BYTES, utf8(Integer.toString(value.length)));
    return out;
  }

  /** A record's key for a log line: capped, so that a hostile key cannot flood the log. */
  public static String keyForLog(String key) {
    if (key == null) {
      return "null";
    }
    return key.length() <= MAX_MESSAGE_CHARS
        ? key
        : key.substring(0, MAX_MESSAGE_CHARS) + "...(" + key.length() + " chars)";
  }

  /** The key again unless it alone is large (over 1 KiB): a key is an id, not a payload. */
  private static String keyOrNull(ConsumerRecord<String, byte[]> record) {
    return record.key() != null && record.key().length() <= 1024 ? record.key() : null;
  }

  private static void addSource(
      Headers headers, ConsumerRecord<String, byte[]> record, String reason) {
    headers.add(RejectHeaders.REASON, utf8(reason));
    headers.add(RejectHeaders.SOURCE_TOPIC, utf8(record.topic()));
    headers.add(RejectHeaders.SOURCE_PARTITION, utf8(Integer.toString(record.partition())));
    headers.add(RejectHeaders.SOURCE_OFFSET, utf8(Long.toString(record.offset())));
  }

  static String sha256Hex(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
