package dev.ax.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskScheduledEvent;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

class EventDecoderTest {

  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final EventDecoder<TaskScheduledEvent> decoder =
      EventDecoder.of(TaskScheduledEvent.class, "announcement", "ticker", meters);

  private static ConsumerRecord<String, byte[]> record(byte[] value) {
    return new ConsumerRecord<>("ax.task.scheduled", 2, 41L, "task-1", value);
  }

  private double unreadable() {
    return meters
        .counter("ax.records.unreadable", "stage", "ticker", "event", "TaskScheduledEvent")
        .count();
  }

  @Test
  void aReadableEventIsReturnedAndNotCounted() {
    TaskScheduledEvent event =
        new TaskScheduledEvent(AxJson.VERSION, "task-1", "task-1@5", 5L, "trace", 7L, "");
    assertThat(decoder.decode(record(AxJson.write(event)))).contains(event);
    assertThat(unreadable()).isZero();
  }

  @Test
  void everyUnreadableValueIsSkippedAndCountedOnce() {
    byte[][] values = {
      "not json".getBytes(StandardCharsets.UTF_8),
      "null".getBytes(StandardCharsets.UTF_8),
      "[1,2]".getBytes(StandardCharsets.UTF_8),
      new byte[0],
      null
    };
    for (byte[] value : values) {
      assertThat(decoder.decode(record(value))).isEmpty();
    }
    assertThat(unreadable()).isEqualTo(values.length);
  }

  @Test
  void aRecordTheStageRefusesIsCountedWithTheSameMeter() {
    decoder.skipped(record(new byte[] {1}), "trigger group too long");
    assertThat(unreadable()).isEqualTo(1.0);
  }
}
