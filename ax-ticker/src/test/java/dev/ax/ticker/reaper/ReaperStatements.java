package dev.ax.ticker.reaper;

import static dev.ax.common.testing.SeededHistory.NOW_MS;

import dev.ax.common.store.RunningShardFirings;
import dev.ax.common.store.ShardFirings;
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
    ChainRepairStore.LIVE.forEach(status -> live.add(status.name()));
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
            UnclaimedDispatches.UNCLAIMED_WITH_GROUP,
            "DISPATCHED",
            NOW_MS,
            500),
        PlannedStatement.of(
            "reaper: unclaimed, to emit again",
            UnclaimedDispatches.dispatchedBelowSql("dispatched_at_ms"),
            "DISPATCHED",
            NOW_MS,
            500),
        PlannedStatement.of(
            "reaper: adoption of a predecessor's dispatches",
            UnclaimedDispatches.dispatchedBelowSql("epoch"),
            "DISPATCHED",
            9L,
            500),
        PlannedStatement.of(
            "shard settlement: firings running shards",
            RunningShardFirings.UNSETTLED_SQL,
            ShardFirings.OWNER,
            NOW_MS,
            NOW_MS,
            "job@1",
            200),
        PlannedStatement.of(
            "chain repair: a page of ACTIVE tasks", ChainRepairStore.ACTIVE_PAGE, "CRON", "", 500),
        PlannedStatement.of(
                "chain repair: which of a page have a live instance",
                ChainRepairStore.withLiveInstanceSql(Sql.placeholders(page.size())),
                live)
            .readingBy("ax_instance_task_status"),
        // Retention's batches as RetentionStore runs them, each from a cursor in mid-range.
        PlannedStatement.of(
            "retention: finished instances older than the cutoff",
            RetentionSql.instancesSql("SUCCESS"),
            "SUCCESS",
            MONTH_AGO_MS,
            MONTH_AGO_MS - 86_400_000L,
            MONTH_AGO_MS - 86_400_000L,
            "",
            MONTH_AGO_MS,
            500),
        PlannedStatement.of(
            "retention: DEAD instances whose letter was discarded",
            RetentionSql.instancesSql("DEAD"),
            "DEAD",
            MONTH_AGO_MS,
            MONTH_AGO_MS - 86_400_000L,
            MONTH_AGO_MS - 86_400_000L,
            "",
            MONTH_AGO_MS,
            500),
        PlannedStatement.of(
            "retention: DEAD instances whose letter was discarded, from the range's start",
            RetentionSql.instancesSql("DEAD"),
            "DEAD",
            MONTH_AGO_MS,
            Long.MIN_VALUE,
            Long.MIN_VALUE,
            "",
            MONTH_AGO_MS,
            500),
        PlannedStatement.of(
            "retention: ended tasks with no instance left",
            RetentionSql.tasksSql(),
            "ENDED",
            MONTH_AGO_MS,
            MONTH_AGO_MS - 86_400_000L,
            MONTH_AGO_MS - 86_400_000L,
            "",
            500),
        PlannedStatement.of(
            "retention: superseded task versions",
            RetentionSql.versionsSql(),
            MONTH_AGO_MS,
            MONTH_AGO_MS - 86_400_000L,
            MONTH_AGO_MS - 86_400_000L,
            "",
            "",
            0,
            500));
  }
}
