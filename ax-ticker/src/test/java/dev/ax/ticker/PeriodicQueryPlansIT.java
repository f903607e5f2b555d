package dev.ax.ticker;

import static dev.ax.common.testing.SeededHistory.NOW_MS;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.common.store.Sql;
import dev.ax.common.testing.PlannedStatement;
import dev.ax.common.testing.QueryPlans;
import dev.ax.common.testing.SeededHistory;
import dev.ax.common.testing.TestRuntime;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.ticker.backlog.BacklogStatements;
import dev.ax.ticker.reaper.ReaperStatements;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every periodic or per-batch statement of the ticker (window load, firing, FIXED_DELAY chaining,
 * reaper, chain repair, backlog gauges, retention) is served by an index whatever the history:
 * {@code EXPLAIN} on a database seeded with a history ({@link SeededHistory}) shows no full scan
 * and no sort of a growing table ({@link QueryPlans}).
 */
@ExtendWith(AxInfraExtension.class)
class PeriodicQueryPlansIT {

  @Test
  void everyPeriodicStatementReadsAnIndexRange(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      SeededHistory.seed(runtime.dataSource());
      List<PlannedStatement> statements = new ArrayList<>(tickerStatements());
      statements.addAll(ReaperStatements.all());
      statements.addAll(BacklogStatements.all());
      QueryPlans.assertIndexed(runtime.dataSource(), statements);
    }
  }

  @Test
  void theHarnessFailsOnAScanAndOnASort(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      SeededHistory.seed(runtime.dataSource());
      PlannedStatement scan =
          PlannedStatement.of(
              "no index on last_error", "SELECT 1 FROM ax_instance WHERE last_error = ?", "x");
      PlannedStatement sort =
          PlannedStatement.of(
              "sorted by an unindexed column",
              "SELECT seq FROM ax_instance WHERE status = ? ORDER BY updated_at_ms LIMIT 10",
              "SUCCESS");
      for (PlannedStatement bad : List.of(scan, sort)) {
        assertThatThrownBy(() -> QueryPlans.assertIndexed(runtime.dataSource(), List.of(bad)))
            .isInstanceOf(AssertionError.class)
            .hasMessageContaining(bad.name());
      }
    }
  }

  private static List<PlannedStatement> tickerStatements() {
    List<Object> seqs = new ArrayList<>();
    LongStream.rangeClosed(1, 500).map(i -> i * 37).forEach(seqs::add);
    List<Object> bySeq = new ArrayList<>(seqs);
    bySeq.add("SCHEDULED");
    List<String> taskIds = new ArrayList<>();
    for (int n = 0; n < 500; n++) {
      taskIds.add(SeededHistory.taskId(n * 5));
    }
    List<Object> inFlight = new ArrayList<>(taskIds);
    inFlight.addAll(List.of("DISPATCHED", "RUNNING", "RETRYING"));
    List<Object> pending = new ArrayList<>(taskIds);
    pending.addAll(List.of("SCHEDULED", "PAUSED"));
    return List.of(
        PlannedStatement.of(
            "window load: a full load's first page",
            FiringStore.WINDOW_PAGE,
            "SCHEDULED",
            NOW_MS + 60_000,
            Long.MIN_VALUE,
            Long.MIN_VALUE,
            Long.MIN_VALUE,
            5_000),
        PlannedStatement.of(
            "window load: a page past the watermark",
            FiringStore.WINDOW_PAGE,
            "SCHEDULED",
            NOW_MS + 60_000,
            NOW_MS + 30_000,
            NOW_MS + 30_000,
            1_000L,
            5_000),
        PlannedStatement.of(
            "firing: the batch's rows still SCHEDULED",
            FiringStore.scheduledBySeqSql(Sql.placeholders(seqs.size())),
            bySeq),
        PlannedStatement.of(
                "firing: tasks with a run in flight",
                FiringStore.tasksInFlightSql(Sql.placeholders(taskIds.size())),
                inFlight)
            .readingBy("ax_instance_task_status"),
        PlannedStatement.of(
                "FIXED_DELAY chaining: tasks with a pending firing",
                FiringStore.pendingOfTasksSql(Sql.placeholders(taskIds.size())),
                pending)
            .readingBy("ax_instance_task_status"));
  }
}
