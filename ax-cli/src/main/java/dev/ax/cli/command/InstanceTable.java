package dev.ax.cli.command;

import dev.ax.cli.text.Columns;
import dev.ax.cli.text.TextTable;
import dev.ax.cli.text.Times;
import dev.ax.common.store.InstanceRow;
import java.util.List;

/**
 * Instance rows as {@code ax task show} prints them, and as {@code ax flow} does, with the task of
 * each row first. Stateless.
 */
final class InstanceTable {

  /** One task's instances. */
  private static final Columns<InstanceRow> OF_TASK =
      instanceColumns(Columns.builder(), 60).build();

  /** A flow run's instances: the task first; errors cut shorter to leave it the room. */
  private static final Columns<InstanceRow> OF_FLOW =
      instanceColumns(Columns.<InstanceRow>builder().left("task", InstanceRow::taskId), 50).build();

  private InstanceTable() {}

  /** The instances of one task. */
  static TextTable of(List<InstanceRow> rows) {
    return OF_TASK.table(rows);
  }

  /** The instances of a flow run, of several tasks. */
  static TextTable withTask(List<InstanceRow> rows) {
    return OF_FLOW.table(rows);
  }

  private static Columns.Builder<InstanceRow> instanceColumns(
      Columns.Builder<InstanceRow> columns, int errorWidth) {
    return columns
        .left("instance", InstanceRow::instanceId)
        .left("status", InstanceRow::status)
        .right("attempt", InstanceRow::attempt)
        .left("due", row -> Times.clock(row.dueAtMs()))
        .left("claimed", row -> clockOrBlank(row.claimedAtMs()))
        .left("finished", row -> clockOrBlank(row.finishedAtMs()))
        .left("error", errorWidth, InstanceRow::lastError);
  }

  /** The time, or an empty cell for one that has not come yet. */
  private static String clockOrBlank(Long epochMs) {
    return epochMs == null ? "" : Times.clock(epochMs);
  }
}
