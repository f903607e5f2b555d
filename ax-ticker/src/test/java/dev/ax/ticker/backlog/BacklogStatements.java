package dev.ax.ticker.backlog;

import static dev.ax.common.testing.SeededHistory.NOW_MS;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.testing.PlannedStatement;
import java.util.ArrayList;
import java.util.List;

/** The backlog gauges' statements as {@link BacklogStore} runs them, for the EXPLAIN test. */
public final class BacklogStatements {

  private BacklogStatements() {}

  public static List<PlannedStatement> all() {
    List<PlannedStatement> all = new ArrayList<>();
    for (InstanceStatus status : BacklogStore.ACTIVE) {
      all.add(
          PlannedStatement.of(
              "backlog: " + status + " instances, capped",
              BacklogStore.COUNT_STATUS_CAPPED,
              status.name(),
              BacklogStore.COUNT_CAP));
    }
    all.add(
        PlannedStatement.of(
            "backlog: oldest due and not started", BacklogStore.OLDEST_DUE_NOT_STARTED, NOW_MS));
    all.add(
        PlannedStatement.of(
            "backlog: outbox rows, capped", BacklogStore.OUTBOX_CAPPED, BacklogStore.COUNT_CAP));
    return all;
  }
}
