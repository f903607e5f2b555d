package dev.ax.common.kafka;

import dev.ax.common.contract.AxJson;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Optional;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one kind of internal event from a record's JSON value, the one way every stage does: an
 * unreadable value (not JSON, the wrong shape, the text {@code null}) is not poison. It is logged
 * once, at WARN, with where it was and why, counted in {@code ax.records.unreadable{stage, event}},
 * and skipped; the stage goes on with the next record.
 *
 * <p>Thread-safe (Jackson's mapper and Micrometer's counter are).
 *
 * @param <T> the event's type
 */
public final class EventDecoder<T> {

  private static final Logger log = LoggerFactory.getLogger(EventDecoder.class);

  private final Class<T> type;
  private final String what;
  private final Counter unreadable;

  private EventDecoder(Class<T> type, String what, Counter unreadable) {
    this.type = type;
    this.what = what;
    this.unreadable = unreadable;
  }

  /**
   * @param what names the event in the log line, e.g. {@code "retry event"}
   * @param stage the reading stage, a tag of the meter
   */
  public static <T> EventDecoder<T> of(
      Class<T> type, String what, String stage, MeterRegistry meters) {
    Counter unreadable =
        Counter.builder("ax.records.unreadable")
            .description("internal events a stage could not read and skipped")
            .tag("stage", stage)
            .tag("event", type.getSimpleName())
            .register(meters);
    return new EventDecoder<>(type, what, unreadable);
  }

  /** The event in {@code record}, or empty when it cannot be read (logged and counted). */
  public Optional<T> decode(ConsumerRecord<String, byte[]> record) {
    try {
      return Optional.of(AxJson.read(record.value(), type));
    } catch (RuntimeException e) {
      skipped(record, e.getMessage());
      return Optional.empty();
    }
  }

  /**
   * Hands {@code action} each event of {@code records} that can be read, with its record, in order;
   * those that cannot are logged, counted and skipped ({@link #decode}).
   */
  public void forEachEvent(
      ConsumerRecords<String, byte[]> records,
      BiConsumer<ConsumerRecord<String, byte[]>, T> action) {
    for (ConsumerRecord<String, byte[]> record : records) {
      decode(record).ifPresent(event -> action.accept(record, event));
    }
  }

  /**
   * Logs and counts {@code record} as skipped for {@code reason}: for a record that decodes but
   * that the stage cannot take (e.g. a field out of its bounds).
   */
  public void skipped(ConsumerRecord<String, byte[]> record, String reason) {
    unreadable.increment();
    log.warn(
        "Ignoring {} at {}-{}@{}: {}",
        what,
        record.topic(),
        record.partition(),
        record.offset(),
        reason);
  }
}
