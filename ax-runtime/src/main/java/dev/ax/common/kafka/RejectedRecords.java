package dev.ax.common.kafka;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends a record a stage will not or cannot handle to where such records go (ingest's {@code
 * ax.task.commands.rejected}, a stage's {@code ax.parked.<stage>}): the original key and value with
 * the reason and source headers ({@link RejectHeaders}). Such a send must always be deliverable, or
 * the batch that holds it is redelivered for ever: so when that record is too large for the
 * producer ({@code max.request.size}, predicted here) or for the broker ({@link
 * RecordTooLargeException} from the send), it goes instead without its value, with the SHA-256
 * digest and length of the value in {@link RejectHeaders#VALUE_SHA256} and {@link
 * RejectHeaders#VALUE_BYTES}; a key longer than {@link #MAX_KEY_BYTES} is dropped the same way.
 *
 * <p>Thread-safety: safe to call from any thread (the producer is thread-safe, the rest is
 * immutable); ingest calls it from its consumer thread only. The fallback is sent from the thread
 * that waits on the returned future, never from the producer's I/O thread.
 */
public final class RejectedRecords {

  private static final Logger log = LoggerFactory.getLogger(RejectedRecords.class);

  /**
   * Room for what a record costs beyond its key, value and headers (batch and record framing are
   * under 100 bytes; the rest is margin), so the prediction errs on the side of the fallback.
   */
  static final int RECORD_OVERHEAD_BYTES = 1024;

  /** A key is a taskId (at most 128 characters); a longer one is only echoed up to this. */
  static final int MAX_KEY_BYTES = 1024;

  private final Producer<String, byte[]> producer;
  private final UnaryOperator<String> topicOf;
  private final int maxRequestSizeBytes;

  /**
   * @param maxRequestSizeBytes the producer's {@code max.request.size}
   */
  public RejectedRecords(Producer<String, byte[]> producer, String topic, int maxRequestSizeBytes) {
    this(producer, source -> topic, maxRequestSizeBytes);
  }

  /**
   * @param topicOf where a record read from a topic goes, by that topic's name (ingest: each
   *     namespace's commands to its own rejected topic)
   */
  public RejectedRecords(
      Producer<String, byte[]> producer, UnaryOperator<String> topicOf, int maxRequestSizeBytes) {
    this.producer = producer;
    this.topicOf = topicOf;
    this.maxRequestSizeBytes = maxRequestSizeBytes;
  }

  /**
   * Sends the rejection of {@code record}. The returned future completes when a rejection of the
   * record is on the broker: the full one, or the one without its value if the full one was too
   * large.
   */
  public Future<RecordMetadata> send(ConsumerRecord<String, byte[]> record, String reason) {
    ProducerRecord<String, byte[]> full = full(record, reason);
    if (estimatedBytes(full) > maxRequestSizeBytes) {
      log.warn(
          "Record {}-{}@{} for {} is too large to echo ({} bytes); sent without its value",
          record.topic(),
          record.partition(),
          record.offset(),
          topicOf.apply(record.topic()),
          estimatedBytes(full));
      return producer.send(withoutValue(record, reason));
    }
    return new FallbackSend(producer.send(full), record, reason);
  }

  ProducerRecord<String, byte[]> full(ConsumerRecord<String, byte[]> record, String reason) {
    ProducerRecord<String, byte[]> out =
        new ProducerRecord<>(topicOf.apply(record.topic()), record.key(), record.value());
    addSourceHeaders(out, record, reason);
    return out;
  }

  ProducerRecord<String, byte[]> withoutValue(
      ConsumerRecord<String, byte[]> record, String reason) {
    String key = record.key();
    byte[] keyBytes = key == null ? null : key.getBytes(StandardCharsets.UTF_8);
    boolean keepKey = keyBytes == null || keyBytes.length <= MAX_KEY_BYTES;
    ProducerRecord<String, byte[]> out =
        new ProducerRecord<>(topicOf.apply(record.topic()), keepKey ? key : null, null);
    addSourceHeaders(out, record, reason);
    byte[] value = record.value() == null ? new byte[0] : record.value();
    out.headers().add(RejectHeaders.VALUE_SHA256, utf8(sha256(value)));
    out.headers().add(RejectHeaders.VALUE_BYTES, utf8(Integer.toString(value.length)));
    if (!keepKey) {
      out.headers().add(RejectHeaders.KEY_SHA256, utf8(sha256(keyBytes)));
    }
    return out;
  }

  private static void addSourceHeaders(
      ProducerRecord<String, byte[]> out, ConsumerRecord<String, byte[]> record, String reason) {
    out.headers().add(RejectHeaders.REASON, utf8(reason));
    out.headers().add(RejectHeaders.SOURCE_TOPIC, utf8(record.topic()));
    out.headers().add(RejectHeaders.SOURCE_PARTITION, utf8(Integer.toString(record.partition())));
    out.headers().add(RejectHeaders.SOURCE_OFFSET, utf8(Long.toString(record.offset())));
  }

  static long estimatedBytes(ProducerRecord<String, byte[]> record) {
    long bytes = RECORD_OVERHEAD_BYTES;
    if (record.key() != null) {
      bytes += record.key().getBytes(StandardCharsets.UTF_8).length;
    }
    if (record.value() != null) {
      bytes += record.value().length;
    }
    for (Header header : record.headers()) {
      bytes += header.key().getBytes(StandardCharsets.UTF_8).length;
      bytes += header.value() == null ? 0 : header.value().length;
    }
    return bytes;
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  /**
   * The full rejection's send; if it fails because the record is too large, {@link #get} sends the
   * rejection without its value and waits for that instead. Any other failure is the caller's to
   * handle (the batch is redelivered), as for every send.
   */
  private final class FallbackSend implements Future<RecordMetadata> {
    private final Future<RecordMetadata> first;
    private final ConsumerRecord<String, byte[]> record;
    private final String reason;

    FallbackSend(
        Future<RecordMetadata> first, ConsumerRecord<String, byte[]> record, String reason) {
      this.first = first;
      this.record = record;
      this.reason = reason;
    }

    @Override
    public RecordMetadata get() throws InterruptedException, ExecutionException {
      try {
        return first.get();
      } catch (ExecutionException e) {
        return fallback(e).get();
      }
    }

    @Override
    public RecordMetadata get(long timeout, TimeUnit unit)
        throws InterruptedException, ExecutionException, TimeoutException {
      long deadlineNanos = System.nanoTime() + unit.toNanos(timeout);
      try {
        return first.get(timeout, unit);
      } catch (ExecutionException e) {
        return fallback(e).get(deadlineNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
      }
    }

    private Future<RecordMetadata> fallback(ExecutionException e) throws ExecutionException {
      if (!(e.getCause() instanceof RecordTooLargeException)) {
        throw e;
      }
      log.warn(
          "Record {}-{}@{} for {} was too large for Kafka ({}); sent without its value",
          record.topic(),
          record.partition(),
          record.offset(),
          topicOf.apply(record.topic()),
          e.getCause().getMessage());
      return producer.send(withoutValue(record, reason));
    }

    /** A send cannot be cancelled: the producer's own futures refuse, and so does this one. */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      return false;
    }

    @Override
    public boolean isCancelled() {
      return false;
    }

    /** Done as far as the first send goes; a fallback starts only inside {@link #get}. */
    @Override
    public boolean isDone() {
      return first.isDone();
    }
  }
}
