package dev.ax.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.contract.CommandType;
import dev.ax.common.contract.TaskCommand;
import org.junit.jupiter.api.Test;

/** Ingest's record key check; IngestStageIT runs it through Kafka. */
class RecordKeyTest {

  private static TaskCommand command(String taskId) {
    return new TaskCommand(
        1, CommandType.CREATE, taskId, null, null, "trace", false, null, null, null, false, null);
  }

  @Test
  void noKeyOrTheTaskIdIsFine() {
    assertThat(CreatePlanner.keyMismatch(null, command("t"))).isNull();
    assertThat(CreatePlanner.keyMismatch("t", command("t"))).isNull();
  }

  @Test
  void anotherKeyIsRejectedWithBothValuesCapped() {
    assertThat(CreatePlanner.keyMismatch("k", command("t")))
        .isEqualTo("record key 'k' does not match taskId 't'");

    String reason = CreatePlanner.keyMismatch("k".repeat(100_000), command("t"));

    assertThat(reason).startsWith("record key 'kkk").endsWith("does not match taskId 't'");
    assertThat(reason.length()).isLessThan(300);
  }

  @Test
  void aGroupCommandIsKeyedByItsGroup() {
    TaskCommand pauseGroup =
        new TaskCommand(
            1, CommandType.PAUSE, null, "g", null, "trace", false, null, "c-1", null, false, null);

    assertThat(CreatePlanner.keyMismatch("g", pauseGroup)).isNull();
    assertThat(CreatePlanner.keyMismatch(null, pauseGroup)).isNull();
    assertThat(CreatePlanner.keyMismatch("t", pauseGroup))
        .isEqualTo("record key 't' does not match group 'g'");
  }
}
