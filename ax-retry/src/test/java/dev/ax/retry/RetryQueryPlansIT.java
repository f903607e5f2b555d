package dev.ax.retry;

import static dev.ax.common.testing.SeededHistory.NOW_MS;

import dev.ax.common.store.Sql;
import dev.ax.common.testing.PlannedStatement;
import dev.ax.common.testing.QueryPlans;
import dev.ax.common.testing.SeededHistory;
import dev.ax.common.testing.TestRuntime;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The retry stage's periodic statements (the rescan, the dispatch of a batch, the in-flight count)
 * are served by an index whatever the history: {@code EXPLAIN} on a seeded database ({@link
 * QueryPlans}).
 */
@ExtendWith(AxInfraExtension.class)
class RetryQueryPlansIT {

  @Test
  void everyPeriodicStatementReadsAnIndexRange(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      SeededHistory.seed(runtime.dataSource());
      List<Object> bySeq = new ArrayList<>();
      LongStream.rangeClosed(1, 500).map(i -> i * 41).forEach(bySeq::add);
      int seqs = bySeq.size();
      bySeq.add("RETRYING");
      QueryPlans.assertIndexed(
          runtime.dataSource(),
          List.of(
              PlannedStatement.of(
                      "retry rescan: RETRYING rows due, soonest first",
                      RetryStore.PENDING_RETRIES,
                      "RETRYING",
                      NOW_MS + 300_000,
                      1_000)
                  .readingBy("ax_instance_retry_at"),
              PlannedStatement.of(
                  "retry dispatch: the batch's rows still RETRYING",
                  RetryStore.retryingBySeqSql(Sql.placeholders(seqs)),
                  bySeq),
              PlannedStatement.of(
                  "retry bound: retried attempts in flight",
                  RetryStore.RETRIES_IN_FLIGHT,
                  "DISPATCHED",
                  "RUNNING")));
    }
  }
}
