package dev.ax.deadletter;

import static dev.ax.common.testing.TestTasks.newTask;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TaskState;
import dev.ax.common.testing.RawSql;
import dev.ax.common.testing.StoreFixture;
import dev.ax.deadletter.DeadLetterStore.ReplayResult;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The replay of a dead letter whose one-shot task ENDED (its only run went DEAD) runs it again and
 * makes the task ACTIVE in the same transaction; the letter of a CANCELLED task is still refused.
 */
@ExtendWith(AxInfraExtension.class)
class EndedTaskReplayIT {

  @RegisterExtension final StoreFixture store;

  EndedTaskReplayIT(AxTestEnv env) {
    store = StoreFixture.open(env);
  }

  @Test
  void aReplayMakesTheEndedTaskActiveAgainWithItsRun() throws Exception {
    store.tasks().create(List.of(newTask("ended", 100), newTask("stopped", 100)), "test", 10);
    RawSql.execute(store.runtime().dataSource(), "UPDATE ax_instance SET status = 'DEAD'");
    RawSql.execute(
        store.runtime().dataSource(),
        "UPDATE ax_task SET state = CASE task_id WHEN 'ended' THEN 'ENDED' ELSE 'CANCELLED' END");
    long ended = letter("ended");
    long stopped = letter("stopped");
    DeadLetterStore letters = new DeadLetterStore(store.runtime().dataSource());

    assertThat(letters.replay(ended, "op", "fixed", 500)).isEqualTo(ReplayResult.REPLAYED);
    assertThat(letters.replay(stopped, "op", "fixed", 500)).isEqualTo(ReplayResult.TASK_STOPPED);

    assertThat(store.tasks().find("ended").get().state()).isEqualTo(TaskState.ACTIVE);
    assertThat(store.instances().find("ended@100").get().status())
        .isEqualTo(InstanceStatus.DISPATCHED);
    assertThat(store.tasks().find("stopped").get().state()).isEqualTo(TaskState.CANCELLED);
  }

  private long letter(String taskId) throws Exception {
    RawSql.execute(
        store.runtime().dataSource(),
        "INSERT INTO ax_dead_letter (instance_id, task_id, task_group, task_snapshot,"
            + " attempts_json, state, created_at_ms, updated_at_ms) VALUES ('"
            + taskId
            + "@100', '"
            + taskId
            + "', 'default', '{}', '[]', 'OPEN', 200, 200)");
    try (var connection = store.runtime().dataSource().getConnection();
        var read = connection.prepareStatement("SELECT id FROM ax_dead_letter WHERE task_id = ?")) {
      read.setString(1, taskId);
      try (var rs = read.executeQuery()) {
        assertThat(rs.next()).isTrue();
        return rs.getLong(1);
      }
    }
  }
}
