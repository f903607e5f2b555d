package dev.ax.cli.command;

import dev.ax.cli.text.TextTable;
import dev.ax.cli.text.Times;
import dev.ax.common.store.InstanceRow;
import java.util.List;

/** Instance rows as {@code ax task show} prints them. Stateless. */
final class InstanceTable {

  private InstanceTable() {}

  static TextTable of(List<InstanceRow> rows) {
    TextTable table =
        new TextTable(
            TextTable.Column.left("instance"),
            TextTable.Column.left("status"),
            TextTable.Column.right("attempt"),
            TextTable.Column.left("due"),
            TextTable.Column.left("claimed"),
            TextTable.Column.left("finished"),
            TextTable.Column.left("error").maxWidth(60));
    for (InstanceRow row : rows) {
      table.row(
          row.instanceId(),
          row.status(),
          row.attempt(),
          Times.clock(row.dueAtMs()),
          row.claimedAtMs() == null ? "" : Times.clock(row.claimedAtMs()),
          row.finishedAtMs() == null ? "" : Times.clock(row.finishedAtMs()),
          row.lastError() == null ? "" : row.lastError());
    }
    return table;
  }
}
