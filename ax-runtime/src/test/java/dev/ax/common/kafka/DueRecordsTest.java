package dev.ax.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskDueEvent;
import dev.ax.common.store.DueInstance;
import dev.ax.common.testing.TestTasks;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class DueRecordsTest {

  @Test
  void aDueEventCarriesTheRowAsEmittedThroughJson() {
    DueInstance row = new DueInstance("t@1000", "t", 1000, "trace-t", 42, 3, 2, 1, "flow-7");

    byte[] json = DueRecords.of("ax.task.due", row, 5, 1001, "g").value();
    TaskDueEvent event = AxJson.read(json, TaskDueEvent.class);

    assertThat(event.epoch()).isEqualTo(5);
    assertThat(event.group()).isEqualTo("g");
    assertThat(rowOf(event)).isEqualTo(row);
  }

  @Test
  void anEventWithoutTheRowStillReads() {
    String older =
        "{\"v\":1,\"taskId\":\"t\",\"instanceId\":\"t@1000\",\"dueAtMs\":1000,\"epoch\":5,"
            + "\"emittedAtMs\":1001,\"traceId\":\"trace-t\",\"group\":\"g\"}";

    TaskDueEvent event = AxJson.read(older.getBytes(StandardCharsets.UTF_8), TaskDueEvent.class);

    assertThat(event.instanceId()).isEqualTo("t@1000");
    assertThat(event.attempt()).isNull();
    assertThat(event.seq()).isNull();
  }

  @Test
  void aFirstAttemptOfNoFlowRunKeepsItsNullFlowRun() {
    DueInstance row = new DueInstance("t@1000", "t", 1000, "trace-t", 42, 1);

    TaskDueEvent event =
        AxJson.read(DueRecords.of("ax.task.due", row, 0, 1001, null).value(), TaskDueEvent.class);

    assertThat(rowOf(event)).isEqualTo(row);
    assertThat(event.flowRunId()).isNull();
  }

  @Test
  void everyDueRecordIsKeyedByTaskAndCarriesTheTraceHeader() {
    DueInstance row = new DueInstance("t@1000", "t", 1000, "trace-t", 42, 1);
    TaskDueEvent replayed = TestTasks.dueEvent("t", "t@1000", 1000, 0, 1001, "trace-t", "g");

    for (var record :
        java.util.List.of(
            DueRecords.of("ax.task.due", row, 0, 1001, "g"),
            DueRecords.of("ax.task.due.retry", replayed))) {
      assertThat(record.key()).isEqualTo("t");
      assertThat(
              new String(
                  record.headers().lastHeader(RejectHeaders.TRACE_ID).value(),
                  StandardCharsets.UTF_8))
          .isEqualTo("trace-t");
    }
  }

  private static DueInstance rowOf(TaskDueEvent event) {
    return new DueInstance(
        event.instanceId(),
        event.taskId(),
        event.dueAtMs(),
        event.traceId(),
        event.seq(),
        event.taskVersion(),
        event.attempt(),
        event.retryBase(),
        event.flowRunId());
  }
}
