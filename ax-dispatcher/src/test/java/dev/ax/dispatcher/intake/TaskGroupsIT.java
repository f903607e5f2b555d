package dev.ax.dispatcher.intake;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskDueEvent;
import dev.ax.common.model.Trigger;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.TaskSpecCache;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.RawSql;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TestTasks;
import dev.ax.dispatcher.claim.TaskSpecs;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The pool a due event waits for follows the task's version: an UPDATE that moves a task to another
 * group sends the runs of its new version to the new group's pool, though the old group is cached.
 */
@ExtendWith(AxInfraExtension.class)
class TaskGroupsIT {

  @Test
  void anUpdatedTasksNewVersionGoesToItsNewGroup(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      TaskStore tasks = new TaskStore(runtime.dataSource());
      tasks.create(
          List.of(
              new NewTask(
                  TestTasks.noop("moved", new Trigger.FixedRate(Duration.ofHours(1), null)),
                  "trace",
                  1_000)),
          "test",
          1_000);
      TaskGroups groups =
          new TaskGroups(tasks, new TaskSpecs(tasks, TaskSpecCache.DEFAULT_MAX_BYTES));
      assertThat(groups.of(List.of(event(1)))).containsEntry("moved", "default");

      // What an UPDATE to group "billing" leaves in the task's row.
      RawSql.execute(
          runtime.dataSource(),
          "UPDATE ax_task SET version = 2, task_group = 'billing', spec_json ="
              + " REPLACE(spec_json, '\"group\":\"default\"', '\"group\":\"billing\"')"
              + " WHERE task_id = 'moved'");

      assertThat(groups.of(List.of(event(2)))).containsEntry("moved", "billing");
    }
  }

  /** A due event of version {@code version} that names no group (the dispatcher looks it up). */
  private static TaskDueEvent event(int version) {
    return new TaskDueEvent(
        AxJson.VERSION, "moved", "moved@1", 1_000, 1, 1_000, "t", null, 0, 0, 1L, version, null);
  }
}
