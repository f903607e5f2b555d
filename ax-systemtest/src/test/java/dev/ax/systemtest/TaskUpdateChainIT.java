package dev.ax.systemtest;

import static dev.ax.systemtest.TaskBody.cron;
import static dev.ax.systemtest.TaskBody.noop;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.Jdbc;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * UPDATEs that once ended a CRON chain for good, through the whole pipeline: every-4-seconds
 * updated to every-2 just after a firing (the new schedule reaches the slot the old one had
 * pending), and a revert every-3 → every-2 → every-3 (the reverted schedule reaches the slot it had
 * itself). Each chain must go on firing under its last version.
 */
@ExtendWith(AxInfraExtension.class)
class TaskUpdateChainIT {

  @Test
  void updatedAndRevertedCronChainsGoOnFiring(AxTestEnv env) throws Exception {
    try (OneNode node = OneNode.start(env)) {
      node.send("every4", noop(cron("0/4 * * * * ?", "UTC")));
      node.send("revert", noop(cron("0/3 * * * * ?", "UTC")));
      node.awaitSucceeded("every4", 1);
      node.awaitSucceeded("revert", 1);

      node.sendJson("every4", update("every4", "u-1", "0/2 * * * * ?"));
      node.sendJson("revert", update("revert", "u-1", "0/2 * * * * ?"));
      awaitVersion(node, "revert", 2);
      node.sendJson("revert", update("revert", "u-2", "0/3 * * * * ?"));
      awaitVersion(node, "every4", 2);
      awaitVersion(node, "revert", 3);

      awaitSucceededOfVersion(node, "every4", 2, 4);
      awaitSucceededOfVersion(node, "revert", 3, 3);
      for (String taskId : List.of("every4", "revert")) {
        assertThat(node.instances().findByTask(taskId))
            .extracting(InstanceRow::status)
            .as("%s still has its next firing", taskId)
            .containsAnyOf(
                InstanceStatus.SCHEDULED, InstanceStatus.DISPATCHED, InstanceStatus.RUNNING);
      }
    }
  }

  private static String update(String taskId, String commandId, String expression) {
    return "{\"v\":1,\"type\":\"UPDATE\",\"taskId\":\""
        + taskId
        + "\",\"commandId\":\""
        + commandId
        + "\","
        + noop(cron(expression, "UTC"))
        + ",\"timeoutMs\":5000}";
  }

  private static void awaitVersion(OneNode node, String taskId, int version) {
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> node.tasks().find(taskId).orElseThrow().version() == version);
  }

  private static void awaitSucceededOfVersion(
      OneNode node, String taskId, int version, int atLeast) {
    await()
        .atMost(Duration.ofSeconds(40))
        .until(
            () ->
                new Jdbc(node.runtime().dataSource())
                    .queryLong(
                        "counting runs of version " + version,
                        "SELECT COUNT(*) FROM ax_instance WHERE task_id = ? AND task_version = ?"
                            + " AND status = 'SUCCESS'",
                        Jdbc.Binder.values(taskId, version)),
            n -> n >= atLeast);
  }
}
