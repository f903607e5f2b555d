package dev.ax.ticker;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.common.testing.PlannedStatement;
import dev.ax.common.testing.QueryPlans;
import dev.ax.common.testing.SeededHistory;
import dev.ax.common.testing.TestRuntime;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.ticker.backfill.BackfillStatements;
import dev.ax.ticker.backlog.BacklogStatements;
import dev.ax.ticker.fire.FiringStatements;
import dev.ax.ticker.reaper.ReaperStatements;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every periodic or per-batch statement of the ticker (window load, firing, FIXED_DELAY chaining,
 * reaper, chain repair, backlog gauges, retention, backfill passes) is served by an index whatever
 * the history: {@code EXPLAIN} on a database seeded with a history ({@link SeededHistory}) shows no
 * full scan and no sort of a growing table ({@link QueryPlans}).
 */
@ExtendWith(AxInfraExtension.class)
class PeriodicQueryPlansIT {

  @Test
  void everyPeriodicStatementReadsAnIndexRange(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      SeededHistory.seed(runtime.dataSource());
      List<PlannedStatement> statements = new ArrayList<>(FiringStatements.all());
      statements.addAll(ReaperStatements.all());
      statements.addAll(BacklogStatements.all());
      statements.addAll(BackfillStatements.all());
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
}
