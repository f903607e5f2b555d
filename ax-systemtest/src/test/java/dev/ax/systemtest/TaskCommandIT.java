package dev.ax.systemtest;

import static dev.ax.systemtest.TaskBody.cron;
import static dev.ax.systemtest.TaskBody.inGroup;
import static dev.ax.systemtest.TaskBody.noop;
import static dev.ax.systemtest.TaskBody.once;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.cli.command.ExitCodes;
import dev.ax.common.contract.AxJson;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.InstanceRow;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code ax task} through the CLI against a running pipeline: show and list (text and JSON, unknown
 * ids, malformed filters and their exit codes; a one-shot task ENDED once its run is over), and
 * pause, resume and cancel as commands any client could send, seen taking effect.
 */
@ExtendWith(AxInfraExtension.class)
class TaskCommandIT {

  @Test
  void showsListsAndChangesATaskThroughTheCli(AxTestEnv env) throws Exception {
    try (OneNode node = OneNode.start(env);
        CliRun.Target cli = CliRun.pointAt(env, node.runtime())) {
      node.send(
          "tick", inGroup("ops", noop(cron("* * * * * ?"))) + ",\"params\":{\"token\":\"s3cret\"}");
      node.send("one-off", inGroup("batch", noop(once(0))));
      node.awaitSucceeded("tick", 1);
      node.awaitSucceeded("one-off", 1);
      node.awaitState("one-off", "ENDED"); // its only run is over

      assertThat(CliRun.ax("task", "list", "--state", "ENDED").okOut())
          .contains("one-off", "ONCE", "ENDED", "SUCCESS", "1 task(s)");
      assertThat(CliRun.ax("task", "show", "one-off").okOut())
          .contains("task one-off (ENDED, version 1)");

      CliRun show = CliRun.ax("task", "show", "tick");
      assertThat(show.okOut())
          .contains("task tick (ACTIVE, version 1)")
          .contains("next firing  ")
          .contains("SUCCESS")
          .contains("\"token\" : \"****\"")
          .doesNotContain("s3cret")
          .contains("commands applied: none");
      JsonNode shown = AxJson.MAPPER.readTree(CliRun.ax("task", "show", "tick", "--json").out());
      assertThat(shown.path("state").asText()).isEqualTo("ACTIVE");
      assertThat(shown.path("nextFiringAtMs").isNumber()).isTrue();
      assertThat(shown.path("instances").size()).isPositive();
      assertThat(CliRun.ax("task", "show", "tick", "--reveal").out()).contains("s3cret");

      CliRun unknown = CliRun.ax("task", "show", "nobody");
      assertThat(unknown.exitCode()).isEqualTo(ExitCodes.FAILED);
      assertThat(unknown.err()).contains("no task nobody");
      CliRun badCount = CliRun.ax("task", "show", "tick", "--instances", "0");
      assertThat(badCount.exitCode()).isEqualTo(ExitCodes.BAD_CONFIG);
      assertThat(badCount.err()).contains("--instances must be in 1..1000");

      CliRun list = CliRun.ax("task", "list", "--group", "ops");
      assertThat(list.okOut()).contains("tick", "CRON", "ACTIVE", "1 task(s)");
      assertThat(CliRun.ax("task", "list", "--state", "paused").out()).contains("0 task(s)");
      JsonNode listed =
          AxJson.MAPPER.readTree(CliRun.ax("task", "list", "--trigger", "cron", "--json").out());
      // The API's page, as GET /api/v1/tasks answers it.
      assertThat(listed.get("tasks")).hasSize(1);
      assertThat(listed.get("tasks").get(0).path("taskId").asText()).isEqualTo("tick");
      assertThat(listed.get("tasks").get(0).path("recent").path("window").asInt()).isEqualTo(100);
      assertThat(listed.get("total").asLong()).isEqualTo(1);
      CliRun badState = CliRun.ax("task", "list", "--state", "sleeping");
      assertThat(badState.exitCode()).isEqualTo(ExitCodes.BAD_CONFIG);
      assertThat(badState.err()).contains("--state must be one of ACTIVE, PAUSED, CANCELLED");
      assertThat(CliRun.ax("task", "list", "--last-status", "NOPE").exitCode())
          .isEqualTo(ExitCodes.BAD_CONFIG);
      assertThat(CliRun.ax("task", "list", "--limit", "0").exitCode())
          .isEqualTo(ExitCodes.BAD_CONFIG);

      CliRun pause =
          CliRun.ax("--operator", "alice", "task", "pause", "tick", "--reason", "maintenance");
      assertThat(pause.okOut()).contains("sent PAUSE for task tick");
      node.awaitState("tick", "PAUSED");
      assertThat(CliRun.ax("task", "list", "--state", "PAUSED").out())
          .contains("tick", "1 task(s)");
      assertThat(CliRun.ax("task", "show", "tick").out())
          .contains("PAUSE", "maintenance (by alice)");

      assertThat(CliRun.ax("task", "resume", "tick").exitCode()).isZero();
      node.awaitState("tick", "ACTIVE");
      Path newSpec = Files.createTempFile("tick-v2", ".json");
      Files.writeString(
          newSpec,
          "{\"group\":\"ops\",\"trigger\":{\"type\":\"CRON\",\"expression\":\"*/2 * * * * ?\"},"
              + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"},\"timeoutMs\":5000}");
      CliRun update = CliRun.ax("task", "update", "tick", "--file", newSpec.toString());
      assertThat(update.okOut()).contains("sent UPDATE for task tick");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> node.tasks().find("tick").orElseThrow().version() == 2);
      assertThat(CliRun.ax("task", "show", "tick").out())
          .contains("task tick (ACTIVE, version 2)", "*/2 * * * * ?");
      Files.writeString(newSpec, "[1, 2]");
      assertThat(CliRun.ax("task", "update", "tick", "--file", newSpec.toString()).exitCode())
          .isEqualTo(ExitCodes.BAD_CONFIG);
      CliRun cancel =
          CliRun.ax("task", "cancel", "tick", "--command-id", "op-1", "--reason", "done");
      assertThat(cancel.exitCode()).as(cancel.err()).isZero();
      node.awaitState("tick", "CANCELLED");
      InstanceRow cancelled =
          node.instances().findByTask("tick").stream()
              .filter(r -> r.status() == InstanceStatus.CANCELLED)
              // not the one the update superseded before
              .filter(r -> r.lastError() != null && r.lastError().contains("command op-1"))
              .findFirst()
              .orElseThrow();
      CliRun history = CliRun.ax("task", "show", "tick", "--instance", cancelled.instanceId());
      assertThat(history.okOut())
          .contains("instance " + cancelled.instanceId() + " (CANCELLED)")
          .contains("(created)")
          .contains("cancelled by command op-1: done (by ");
      assertThat(CliRun.ax("task", "show", "tick").out()).contains("CANCEL  op-1");
      assertThat(CliRun.ax("task", "show", "tick", "--instance", "tick@1").exitCode())
          .isEqualTo(ExitCodes.FAILED);
      CliRun badId = CliRun.ax("task", "cancel", "tick", "--command-id", "has space");
      assertThat(badId.exitCode()).isEqualTo(ExitCodes.BAD_CONFIG);
      assertThat(badId.err()).contains("--command-id must match");
      assertThat(CliRun.ax("task").exitCode()).isEqualTo(ExitCodes.BAD_CONFIG);

      // Every change made through the CLI is in the operator log, with who made it.
      CliRun audit = CliRun.ax("audit");
      assertThat(audit.okOut())
          .contains("alice", "task pause", "tick", "maintenance (by alice)")
          .contains("task resume", "task update", "task cancel", "[commandId op-1]")
          .contains("4 action(s)");
      assertThat(CliRun.ax("audit", "--actor", "alice").out()).contains("1 action(s)");
      JsonNode logged = AxJson.MAPPER.readTree(CliRun.ax("audit", "--json", "--limit", "1").out());
      assertThat(logged).hasSize(1);
      assertThat(logged.get(0).path("action").asText()).isEqualTo("task cancel");
      assertThat(CliRun.ax("audit", "--limit", "0").exitCode()).isEqualTo(ExitCodes.BAD_CONFIG);
      assertThat(CliRun.ax("--operator", "", "audit").exitCode()).isEqualTo(ExitCodes.BAD_CONFIG);
    }
  }
}
