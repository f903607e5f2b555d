package dev.ax.common.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.testing.StoreFixture;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A measurement, not a check, run only when asked ({@code -Dax.bench.livecount=ROWS}, see
 * docs/BENCHMARKS.md): a group with ROWS one-shot tasks, 1% of them pending, the rest run; the live
 * count as it was before V16 (an EXISTS per ONCE task), V16's UPDATE, and the count since (a range
 * of {@code ax_task_group_active}), each timed three times; then {@link OneShotEnd#endIfDone} for a
 * few tasks. Bulk-loads with MariaDB's sequence engine (the embedded server's).
 */
@EnabledIfSystemProperty(named = "ax.bench.livecount", matches = "[1-9][0-9]*")
@ExtendWith(AxInfraExtension.class)
class LiveCountBenchIT {

  private static final String BEFORE_V16 =
      "SELECT t.task_group, COUNT(*) FROM ax_task t WHERE t.task_group IN ('g')"
          + " AND t.state NOT IN ('CANCELLED', 'DELETED') AND (t.trigger_type <> 'ONCE' OR"
          + " EXISTS (SELECT 1 FROM ax_instance i WHERE i.task_id = t.task_id AND i.status NOT IN"
          + " ('SUCCESS', 'DEAD', 'CANCELLED', 'SKIPPED'))) GROUP BY t.task_group";
  private static final String SINCE_V16 =
      "SELECT task_group, COUNT(*) FROM ax_task WHERE task_group IN ('g')"
          + " AND state IN ('ACTIVE', 'PAUSED') GROUP BY task_group";

  @RegisterExtension final StoreFixture store;

  LiveCountBenchIT(AxTestEnv env) {
    store = StoreFixture.open(env);
  }

  @Test
  void theLiveCountBeforeAndSinceV16() throws Exception {
    int rows = Integer.getInteger("ax.bench.livecount");
    try (Connection connection = store.runtime().dataSource().getConnection();
        Statement statement = connection.createStatement()) {
      long startNanos = System.nanoTime();
      statement.execute(
          "INSERT INTO ax_task (task_id, version, task_group, trigger_type, state, spec_json,"
              + " trace_id, created_at_ms, updated_at_ms) SELECT CONCAT('h-', seq), 1, 'g',"
              + " 'ONCE', 'ACTIVE', '{}', 't', 1, 1 FROM seq_1_to_"
              + rows);
      statement.execute(
          "INSERT INTO ax_instance (instance_id, task_id, task_version, status, due_at_ms,"
              + " trace_id, created_at_ms, updated_at_ms) SELECT CONCAT('h-', seq, '@1'),"
              + " CONCAT('h-', seq), 1, IF(seq % 100 = 0, 'SCHEDULED', 'SUCCESS'), 1, 't', 1, 1"
              + " FROM seq_1_to_"
              + rows);
      statement.execute("ANALYZE TABLE ax_task, ax_instance");
      report("loaded " + rows + " tasks with their instances", startNanos);
      long live = rows / 100;

      time(statement, "count before V16, history ACTIVE", BEFORE_V16, live);
      startNanos = System.nanoTime();
      statement.execute(
          new String(
                  LiveCountBenchIT.class
                      .getResourceAsStream("/db/migration/V16__one_shot_end.sql")
                      .readAllBytes(),
                  java.nio.charset.StandardCharsets.UTF_8)
              .replaceAll("(?m)^--.*$", "")
              .trim()
              .replaceAll(";$", ""));
      report("V16's UPDATE, " + statement.getUpdateCount() + " tasks ENDED", startNanos);
      statement.execute("ANALYZE TABLE ax_task");
      time(statement, "count since V16, right after it (purge not done)", SINCE_V16, live);
      // Not a synchronisation: the time InnoDB's purge takes to drop the old index entries is part
      // of what this measures (the count right after V16 above, the count after purge below).
      Thread.sleep(Duration.ofSeconds(20).toMillis());
      time(statement, "count since V16, after purge", SINCE_V16, live);
      time(statement, "count before V16, after purge", BEFORE_V16, live);
      for (int i = 0; i < 3; i++) {
        startNanos = System.nanoTime();
        OneShotEnd.endIfDone(connection, List.of("h-100", "h-200", "h-5"), 9);
        report("endIfDone of 3 tasks", startNanos);
      }
    }
  }

  private static void time(Statement statement, String what, String sql, long expected)
      throws Exception {
    for (int i = 0; i < 3; i++) {
      long startNanos = System.nanoTime();
      try (ResultSet rs = statement.executeQuery(sql)) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getLong(2)).isEqualTo(expected);
      }
      report(what, startNanos);
    }
  }

  private static void report(String what, long startNanos) {
    System.out.printf("LiveCountBench %s: %.1f ms%n", what, (System.nanoTime() - startNanos) / 1e6);
  }
}
