package dev.ax.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskScheduledEvent;
import dev.ax.common.store.NewInstance;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

class AnnouncementRecordsTest {

  @Test
  void anAnnouncementIsKeyedByTaskAndCarriesTheEventAndTheTraceHeader() {
    NewInstance instance =
        new NewInstance("t@1000", "t", 3, 1000, "trace-t", "created", null, false);

    ProducerRecord<String, byte[]> record =
        AnnouncementRecords.of("ax.task.scheduled", instance, 42, "CRON#0 * * * * ?");

    assertThat(record.topic()).isEqualTo("ax.task.scheduled");
    assertThat(record.key()).isEqualTo("t");
    assertThat(AxJson.read(record.value(), TaskScheduledEvent.class))
        .isEqualTo(
            new TaskScheduledEvent(
                AxJson.VERSION, "t", "t@1000", 1000, "trace-t", 42, "CRON#0 * * * * ?"));
    assertThat(
            new String(
                record.headers().lastHeader(RejectHeaders.TRACE_ID).value(),
                StandardCharsets.UTF_8))
        .isEqualTo("trace-t");
  }

  @Test
  void anInstanceWithoutATraceIdHasNoTraceHeader() {
    ProducerRecord<String, byte[]> record =
        AnnouncementRecords.of("ax.task.scheduled", "t", "t@1000", 1000, null, 42, "");

    assertThat(record.headers().lastHeader(RejectHeaders.TRACE_ID)).isNull();
  }
}
