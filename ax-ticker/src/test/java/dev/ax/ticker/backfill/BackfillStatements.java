package dev.ax.ticker.backfill;

import dev.ax.common.store.BackfillStore;
import dev.ax.common.testing.PlannedStatement;
import java.util.List;

/** The backfill pass's periodic statements as the ticker runs them, for the EXPLAIN test. */
public final class BackfillStatements {

  private BackfillStatements() {}

  public static List<PlannedStatement> all() {
    return List.of(
        PlannedStatement.of("backfill: the running backfills", BackfillStore.RUNNING_SQL, 100),
        PlannedStatement.of(
            "backfill: a task's running backfill", BackfillStore.RUNNING_OF_TASK_SQL, "t-1"),
        PlannedStatement.of(
            "backfill: a task's live instances", BackfillFirings.LIVE_OF_TASK_SQL, "t-1"));
  }
}
