package dev.ax.ticker.reaper;

import static dev.ax.common.testing.SeededHistory.NOW_MS;

import dev.ax.common.store.Sql;
import dev.ax.common.testing.PlannedStatement;
import dev.ax.common.testing.SeededHistory;
import java.util.ArrayList;
import java.util.List;

/**
 * The reaper's periodic statements (take-back, unclaimed, adoption, chain repair, retention) as it
 * runs them, bound to values that fit {@link SeededHistory}, for the EXPLAIN test.
 */
public final class ReaperStatements {

  private static final long MONTH_AGO_MS = NOW_MS - 30L * 86_400_000;

  private ReaperStatements() {}

  public static List<PlannedStatement> all() {
    List<String> page = new ArrayList<>();
    for (int n = 1; n < 2_000; n += 4) {
      page.add(SeededHistory.taskId(n)); // CRON tasks
    }
    List<Object> live = new ArrayList<>(page);
    live.addAll(ChainRepairStore.LIVE);
    List<Object> removed = new ArrayList<>(List.of("ONCE", "CRON", "FIXED_RATE", "FIXED_DELAY"));
    removed.add(NOW_MS);
    removed.add(500);
    return List.of(
        PlannedStatement.of(
            "reaper: expired runs to take back",
            ReaperStore.EXPIRED_RUNS,
            "RUNNING",
            NOW_MS,
            3,
            500),
        PlannedStatement.of(
            "reaper: runs taken back too often",
            ReaperStore.RUNS_TAKEN_BACK_TOO_OFTEN,
            "RUNNING",
            NOW_MS,
            3,
            500),
        PlannedStatement.of(
            "reaper: unclaimed, with their group (dispatch switch off)",
            ReaperStore.UNCLAIMED_WITH_GROUP,
            "DISPATCHED",
            NOW_MS,
            500),
        PlannedStatement.of(
            "reaper: unclaimed, to emit again",
            ReaperStore.dispatchedBelowSql("dispatched_at_ms"),
            "DISPATCHED",
            NOW_MS,
            500),
        PlannedStatement.of(
            "reaper: adoption of a predecessor's dispatches",
            ReaperStore.dispatchedBelowSql("epoch"),
            "DISPATCHED",
            9L,
            500),
        PlannedStatement.of(
            "chain repair: a page of ACTIVE tasks", ChainRepairStore.ACTIVE_PAGE, "CRON", "", 500),
        PlannedStatement.of(
                "chain repair: which of a page have a live instance",
                ChainRepairStore.withLiveInstanceSql(Sql.placeholders(page.size())),
                live)
            .readingBy("ax_instance_task_status"),
        // Retention's statements as RetentionStore runs them: copied, not referenced, because the
        // retention rewrite replaces them; keep these in step with it. The dead letter is read by
        // a scalar subquery: as an EXISTS, MariaDB materializes it, reading every dead letter.
        PlannedStatement.of(
            "retention: finished instances older than the cutoff",
            "SELECT instance_id FROM ax_instance"
                + " WHERE status IN ('SUCCESS', 'CANCELLED', 'SKIPPED', 'DEAD')"
                + " AND due_at_ms < ? AND updated_at_ms < ?"
                + " AND (status <> 'DEAD' OR (SELECT d.state FROM ax_dead_letter d"
                + " WHERE d.instance_id = ax_instance.instance_id) = 'DISCARDED')"
                + " LIMIT ? FOR UPDATE",
            MONTH_AGO_MS,
            MONTH_AGO_MS,
            500),
        PlannedStatement.of(
            "retention: DELETED tasks with no instance left",
            "SELECT t.task_id FROM ax_task t WHERE t.trigger_type IN ("
                + Sql.placeholders(4)
                + ") AND t.state = 'DELETED' AND t.updated_at_ms < ?"
                + " AND NOT EXISTS (SELECT 1 FROM ax_instance i WHERE i.task_id = t.task_id)"
                + " LIMIT ? FOR UPDATE",
            removed));
  }
}
