package dev.ax.systemtest;

import static dev.ax.systemtest.TaskBody.EVERY_SECOND_UTC;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.store.InstanceRow;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * CANCEL through the whole pipeline: a CRON task that fires every second is cancelled and fires no
 * more, its pending instance CANCELLED with an audit row; the same command again changes nothing,
 * and a CANCEL that cannot apply is rejected with its reason.
 */
@ExtendWith(AxInfraExtension.class)
class TaskCancelIT {

  @Test
  void aCancelledCronTaskFiresNoMoreAndACancelActsOnce(AxTestEnv env) throws Exception {
    try (OneNode node = OneNode.start(env)) {
      node.send("tick", EVERY_SECOND_UTC);
      node.awaitSucceeded("tick", 2);

      String cancel =
          "{\"v\":1,\"type\":\"CANCEL\",\"taskId\":\"tick\",\"commandId\":\"c-1\","
              + "\"reason\":\"created by mistake\"}";
      node.sendJson("tick", cancel);
      node.awaitState("tick", "CANCELLED");
      List<InstanceRow> atCancel = node.assertStopped("tick", "command c-1", "created by mistake");

      // The same command again, then another CANCEL of the task and one of an unknown task: only
      // the last two are rejected, and the task's instances stay as they were.
      node.sendJson("tick", cancel);
      node.sendJson("tick", cancel.replace("\"c-1\"", "\"c-2\""));
      node.sendJson("nobody", Commands.lifecycle("CANCEL", "nobody", "c-3"));
      assertThat(node.awaitRejections(2))
          .containsExactlyInAnyOrder(
              "task tick is cancelled already", "CANCEL for unknown task nobody");
      long recorded = Commands.appliedCommands(node.runtime(), "tick");
      assertThat(recorded).as("c-1 applied once, c-2 refused").isEqualTo(1);

      // Fires no more: over three more seconds of a cron that fires every second, no new row.
      node.assertFiresNoMore("tick", atCancel);
      assertThat(node.rejected().poll()).as("no other rejection").hasSize(2);
    }
  }
}
