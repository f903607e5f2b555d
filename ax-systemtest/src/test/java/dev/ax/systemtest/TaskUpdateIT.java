package dev.ax.systemtest;

import static dev.ax.systemtest.TaskBody.fixedRate;
import static dev.ax.systemtest.TaskBody.noop;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.store.Jdbc;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * UPDATE through the whole pipeline: a task firing every second is updated to every three seconds
 * between two firings; its next firings follow the new version, the superseded one is CANCELLED,
 * the same command again changes nothing, and an update that cannot apply is rejected.
 */
@ExtendWith(AxInfraExtension.class)
class TaskUpdateIT {

  @Test
  void theNextFiringsFollowTheNewVersion(AxTestEnv env) throws Exception {
    try (OneNode node = OneNode.start(env)) {
      Jdbc jdbc = new Jdbc(node.runtime().dataSource());
      node.send("rate", noop(fixedRate(1000)));
      node.awaitSucceeded("rate", 2);

      String update =
          "{\"v\":1,\"type\":\"UPDATE\",\"taskId\":\"rate\",\"commandId\":\"u-1\","
              + noop(fixedRate(3000))
              + ",\"timeoutMs\":5000}";
      node.sendJson("rate", update);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> node.tasks().find("rate").orElseThrow().version() == 2);
      List<Long> newDue =
          await()
              .atMost(Duration.ofSeconds(30))
              .until(() -> succeededDueTimes(jdbc, 2), due -> due.size() >= 3);
      for (int i = 1; i < newDue.size(); i++) {
        assertThat(newDue.get(i) - newDue.get(i - 1)).as("the new interval").isEqualTo(3000);
      }
      assertThat(
              jdbc.queryLong(
                  "counting",
                  "SELECT COUNT(*) FROM ax_instance WHERE task_id = 'rate' AND task_version = 1"
                      + " AND status IN ('SCHEDULED', 'DISPATCHED')",
                  Jdbc.Binder.values()))
          .as("nothing of version 1 left to fire")
          .isZero();
      assertThat(
              jdbc.queryLong(
                  "counting",
                  "SELECT COUNT(*) FROM ax_instance_log WHERE task_id = 'rate'"
                      + " AND to_status = 'CANCELLED' AND reason LIKE 'superseded by version 2%'",
                  Jdbc.Binder.values()))
          .as("the firing of version 1 it replaced")
          .isEqualTo(1);

      // Again under the same id: nothing changes; a change it cannot make is rejected.
      node.sendJson("rate", update);
      node.sendJson(
          "rate",
          update
              .replace("u-1", "u-2")
              .replace(
                  "\"trigger\":{\"type\":\"FIXED_RATE\",\"intervalMs\":3000}",
                  "\"trigger\":{\"type\":\"DEPENDENCY\",\"upstream\":[\"rate\"]}"));
      node.sendJson("ghost", update.replace("\"rate\"", "\"ghost\""));
      assertThat(node.awaitRejections(2))
          .containsExactlyInAnyOrder(
              "UPDATE cannot make task rate a DEPENDENCY task; cancel it and create another",
              "UPDATE for unknown task ghost");
      assertThat(node.tasks().find("rate").orElseThrow().version()).isEqualTo(2);
    }
  }

  private static List<Long> succeededDueTimes(Jdbc jdbc, int version) {
    return jdbc.query(
        "reading due times",
        "SELECT due_at_ms FROM ax_instance WHERE task_id = 'rate' AND task_version = ?"
            + " AND status = 'SUCCESS' ORDER BY due_at_ms",
        Jdbc.Binder.values(version),
        rs -> rs.getLong(1));
  }
}
