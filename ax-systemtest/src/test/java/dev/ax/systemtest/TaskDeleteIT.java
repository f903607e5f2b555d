package dev.ax.systemtest;

import static dev.ax.systemtest.TaskBody.EVERY_SECOND_UTC;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.TaskState;
import dev.ax.common.store.InstanceRow;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * DELETE through the whole pipeline: a CRON task that fires every second is deleted with {@code ax
 * task delete} and fires no more, its pending instance CANCELLED with an audit row, the task
 * DELETED: hidden from {@code ax task list} unless asked for, shown with its history by {@code ax
 * task show}. The same DELETE again changes nothing; another DELETE, a later RESUME and a CANCEL
 * are rejected with their reasons, and a CREATE of the id is a duplicate that does not revive it.
 */
@ExtendWith(AxInfraExtension.class)
class TaskDeleteIT {

  @Test
  void aDeletedCronTaskFiresNoMoreIsHiddenAndTakesNoFurtherCommand(AxTestEnv env) throws Exception {
    try (OneNode node = OneNode.start(env);
        CliRun.Target cli = CliRun.pointAt(env, node.runtime())) {
      node.send("tick", EVERY_SECOND_UTC);
      node.awaitSucceeded("tick", 2);

      CliRun delete =
          CliRun.ax(
              "--operator",
              "alice",
              "task",
              "delete",
              "tick",
              "--command-id",
              "d-1",
              "--reason",
              "created by mistake");
      assertThat(delete.okOut()).contains("sent DELETE for task tick (commandId d-1)");
      node.awaitState("tick", "DELETED");
      List<InstanceRow> atDelete =
          node.assertStopped("tick", "deleted by command d-1", "created by mistake (by alice)");

      // Hidden from the list unless asked for; shown, with its history, by show.
      assertThat(CliRun.ax("task", "list").out()).doesNotContain("tick").contains("0 task(s)");
      assertThat(CliRun.ax("task", "list", "--state", "deleted").out())
          .contains("tick", "DELETED", "1 task(s)");
      CliRun show = CliRun.ax("task", "show", "tick");
      assertThat(show.okOut())
          .contains("task tick (DELETED, version 1)")
          .contains("DELETE  d-1")
          .contains("CANCELLED", "SUCCESS");
      assertThat(CliRun.ax("audit").out()).contains("alice", "task delete", "[commandId d-1]");

      // The same DELETE again acts not at all; a new DELETE, a RESUME, a CANCEL are refused; a
      // CREATE of the id is a duplicate create (ignored, as for any existing id).
      assertThat(CliRun.ax("task", "delete", "tick", "--command-id", "d-1").exitCode()).isZero();
      node.sendJson("tick", "{\"v\":1,\"type\":\"DELETE\",\"taskId\":\"tick\"}");
      node.sendJson("tick", Commands.lifecycle("RESUME", "tick", "r-1"));
      node.sendJson("tick", Commands.lifecycle("CANCEL", "tick", "c-1"));
      node.send("tick", EVERY_SECOND_UTC);
      node.sendJson("nobody", Commands.lifecycle("DELETE", "nobody", "d-2"));
      assertThat(node.awaitRejections(4))
          .containsExactlyInAnyOrder(
              "task tick is deleted already",
              "RESUME of task tick, which is DELETED",
              "CANCEL of task tick, which is DELETED",
              "DELETE for unknown task nobody");
      long recorded = Commands.appliedCommands(node.runtime(), "tick");
      assertThat(recorded).as("d-1 applied once, every later command refused").isEqualTo(1);

      // Fires no more: over three more seconds of a cron that fires every second, no new row.
      node.assertFiresNoMore("tick", atDelete);
      assertThat(node.tasks().find("tick").orElseThrow().state()).isEqualTo(TaskState.DELETED);
      assertThat(node.rejected().poll()).as("no other rejection").hasSize(4);
    }
  }
}
