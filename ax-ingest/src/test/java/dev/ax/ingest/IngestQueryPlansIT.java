package dev.ax.ingest;

import dev.ax.common.store.Sql;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.PlannedStatement;
import dev.ax.common.testing.QueryPlans;
import dev.ax.common.testing.SeededHistory;
import dev.ax.common.testing.TestRuntime;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Ingest's per-batch reads of a group (the live count behind the group limit, whether a group has
 * tasks) are served by an index whatever the group holds: {@code EXPLAIN} on a seeded database
 * ({@link QueryPlans}). The seed puts 300 tasks in each of ten groups, so a plan that sorts or
 * scans a group's tasks shows. A group command's page is not checked: it sorts
 * (docs/ARCHITECTURE.md, "Not built yet").
 */
@ExtendWith(AxInfraExtension.class)
class IngestQueryPlansIT {

  @Test
  void everyPerBatchReadOfAGroupIsAnIndexRange(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      SeededHistory.seed(runtime.dataSource());
      List<String> groups = List.of("g1", "g2", "g3");
      QueryPlans.assertIndexed(
          runtime.dataSource(),
          List.of(
              PlannedStatement.of(
                      "ingest: live tasks of the batch's groups",
                      TaskStore.liveCountSql(Sql.placeholders(groups.size())),
                      groups)
                  .readingBy("ax_task_group_active"),
              PlannedStatement.of(
                      "ingest: live tasks of a namespace",
                      TaskStore.NAMESPACE_LIVE_COUNT,
                      "billing~%")
                  .readingBy("ax_task_group_active"),
              PlannedStatement.of(
                  "group command: whether the group has tasks",
                  GroupLifecycleStore.ANY_TASK,
                  "g5")));
    }
  }
}
