package dev.ax.systemtest;

import static dev.ax.systemtest.TaskBody.fixedRate;
import static dev.ax.systemtest.TaskBody.inGroup;
import static dev.ax.systemtest.TaskBody.noop;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.cli.command.ExitCodes;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TaskState;
import dev.ax.common.store.AuditLog;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.Jdbc;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * PAUSE and RESUME of a whole group through the whole pipeline: three tasks of group g and one of
 * group h fire every second; g is paused (the command sent twice under one id acts once): g's tasks
 * stop firing while h's goes on; {@code ax task resume --group g} makes them fire again. A group
 * command for a group without tasks is rejected with its reason, and the CLI wants exactly one of a
 * task and a group.
 */
@ExtendWith(AxInfraExtension.class)
class TaskGroupPauseIT {

  private static final List<String> GROUP_G = List.of("g-1", "g-2", "g-3");
  private static final String PAUSE_G =
      "{\"v\":1,\"type\":\"PAUSE\",\"group\":\"g\",\"commandId\":\"gp-1\","
          + "\"reason\":\"maintenance\"}";

  @Test
  void aPausedGroupStopsFiringWhileAnotherGoesOnAndFiresAgainOnResume(AxTestEnv env)
      throws Exception {
    try (OneNode node = OneNode.start(env);
        CliRun.Target cli = CliRun.pointAt(env, node.runtime())) {
      for (String id : GROUP_G) {
        node.send(id, everySecondIn("g"));
      }
      node.send("h-1", everySecondIn("h"));
      for (String id : all()) {
        node.awaitSucceeded(id, 1);
      }

      // The same group PAUSE twice, keyed by the group: the second changes nothing.
      node.sendJson("g", PAUSE_G);
      node.sendJson("g", PAUSE_G);
      for (String id : GROUP_G) {
        node.awaitState(id, "PAUSED");
      }
      assertThat(node.tasks().find("h-1").orElseThrow().state()).isEqualTo(TaskState.ACTIVE);
      Map<String, Long> succeededAtPause = new HashMap<>();
      for (String id : all()) {
        succeededAtPause.put(id, node.succeeded(id));
      }
      // Four seconds paused: g's next firings are held and none of them runs; h fires on.
      node.assertHeldWhilePaused(GROUP_G, succeededAtPause, Duration.ofSeconds(4));
      assertThat(node.succeeded("h-1"))
          .as("h-1 fired on while g was paused")
          .isGreaterThanOrEqualTo(succeededAtPause.get("h-1") + 2);
      InstanceRow held =
          node.instances().findByTask("g-2").stream()
              .filter(r -> r.status() == InstanceStatus.PAUSED)
              .findFirst()
              .orElseThrow();
      assertThat(new AuditLog(node.runtime().dataSource()).history(held.instanceId()))
          .last()
          .satisfies(
              t ->
                  assertThat(t.reason())
                      .contains("paused by command gp-1 for group g: maintenance"));
      Jdbc jdbc = new Jdbc(node.runtime().dataSource());
      assertThat(
              jdbc.queryLong(
                  "counting applied commands",
                  "SELECT COUNT(*) FROM ax_task_command WHERE command_id = 'gp-1'",
                  Jdbc.Binder.values()))
          .as("gp-1 applied once to each task of g, and to nothing else")
          .isEqualTo(GROUP_G.size());

      CliRun resume = CliRun.ax("task", "resume", "--group", "g", "--command-id", "gr-1");
      assertThat(resume.okOut()).contains("sent RESUME for group g (commandId gr-1)");
      long resumedAtMs = node.runtime().clock().millis();
      for (String id : GROUP_G) {
        node.awaitSucceededDueAfter(id, resumedAtMs + 1000);
        assertThat(node.tasks().find(id).orElseThrow().state()).isEqualTo(TaskState.ACTIVE);
      }
      assertThat(CliRun.ax("audit").out()).contains("task resume", "group g", "[commandId gr-1]");

      // A group without tasks is rejected with the reason; the CLI wants a task or a group.
      node.sendJson(
          "nobody", "{\"v\":1,\"type\":\"PAUSE\",\"group\":\"nobody\",\"commandId\":\"gp-2\"}");
      assertThat(node.awaitRejections(1))
          .containsExactly("PAUSE for group nobody, which has no tasks");
      CliRun neither = CliRun.ax("task", "pause");
      assertThat(neither.exitCode()).isEqualTo(ExitCodes.BAD_CONFIG);
      assertThat(neither.err()).contains("give a <taskId> or --group <group>, one of them");
      CliRun both = CliRun.ax("task", "pause", "g-1", "--group", "g");
      assertThat(both.exitCode()).isEqualTo(ExitCodes.BAD_CONFIG);
      assertThat(both.err()).contains("not both");
    }
  }

  private static List<String> all() {
    return List.of("g-1", "g-2", "g-3", "h-1");
  }

  private static String everySecondIn(String group) {
    return inGroup(group, noop(fixedRate(1000)));
  }
}
