package dev.ax.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.cli.command.ExitCodes;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.AuditLog;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TopicReader;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterEach;
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

  @AfterEach
  void clearProperties() {
    CliRun.clear();
  }

  @Test
  void aPausedGroupStopsFiringWhileAnotherGoesOnAndFiresAgainOnResume(AxTestEnv env)
      throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env);
        RunningStages stages = RunningStages.on(runtime, "node-1").ingest().ticker().dispatcher();
        KafkaProducer<String, byte[]> producer = UserClients.producer(runtime);
        TopicReader rejected = UserClients.rejected(runtime)) {
      runtime.awaitGroupsAssigned(1, "ingest", "dispatcher");
      CliRun.pointAt(env, runtime);
      InstanceStore instances = new InstanceStore(runtime.dataSource());
      TaskStore tasks = new TaskStore(runtime.dataSource());
      for (String id : GROUP_G) {
        Commands.send(producer, runtime, id, everySecondIn("g"));
      }
      Commands.send(producer, runtime, "h-1", everySecondIn("h"));
      for (String id : all()) {
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> Commands.count(instances.findByTask(id), InstanceStatus.SUCCESS) >= 1);
      }

      // The same group PAUSE twice, keyed by the group: the second changes nothing.
      Commands.sendJson(producer, runtime, "g", PAUSE_G);
      Commands.sendJson(producer, runtime, "g", PAUSE_G);
      for (String id : GROUP_G) {
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> tasks.find(id).orElseThrow().state(), "PAUSED"::equals);
      }
      assertThat(tasks.find("h-1").orElseThrow().state()).isEqualTo("ACTIVE");
      Map<String, Long> succeededAtPause = new HashMap<>();
      for (String id : all()) {
        succeededAtPause.put(id, Commands.count(instances.findByTask(id), InstanceStatus.SUCCESS));
      }
      // Four seconds paused: g's next firings are held and none of them runs; h fires on.
      await()
          .during(Duration.ofSeconds(4))
          .atMost(Duration.ofSeconds(6))
          .untilAsserted(
              () -> {
                for (String id : GROUP_G) {
                  List<InstanceRow> rows = instances.findByTask(id);
                  assertThat(Commands.count(rows, InstanceStatus.SUCCESS))
                      .as("%s ran while paused", id)
                      .isLessThanOrEqualTo(succeededAtPause.get(id) + 1); // one was running
                  assertThat(rows)
                      .extracting(InstanceRow::status)
                      .as("%s while paused", id)
                      .contains(InstanceStatus.PAUSED)
                      .doesNotContain(InstanceStatus.SCHEDULED);
                }
              });
      assertThat(Commands.count(instances.findByTask("h-1"), InstanceStatus.SUCCESS))
          .as("h-1 fired on while g was paused")
          .isGreaterThanOrEqualTo(succeededAtPause.get("h-1") + 2);
      InstanceRow held =
          instances.findByTask("g-2").stream()
              .filter(r -> r.status() == InstanceStatus.PAUSED)
              .findFirst()
              .orElseThrow();
      assertThat(new AuditLog(runtime.dataSource()).history(held.instanceId()))
          .last()
          .satisfies(
              t ->
                  assertThat(t.reason())
                      .contains("paused by command gp-1 for group g: maintenance"));
      Jdbc jdbc = new Jdbc(runtime.dataSource());
      assertThat(
              jdbc.queryLong(
                  "counting applied commands",
                  "SELECT COUNT(*) FROM ax_task_command WHERE command_id = 'gp-1'",
                  Jdbc.Binder.values()))
          .as("gp-1 applied once to each task of g, and to nothing else")
          .isEqualTo(GROUP_G.size());

      CliRun resume = CliRun.ax("task", "resume", "--group", "g", "--command-id", "gr-1");
      assertThat(resume.exitCode()).as(resume.err()).isZero();
      assertThat(resume.out()).contains("sent RESUME for group g (commandId gr-1)");
      long resumedAtMs = runtime.clock().millis();
      for (String id : GROUP_G) {
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    instances.findByTask(id).stream()
                        .anyMatch(
                            r ->
                                r.status() == InstanceStatus.SUCCESS
                                    && r.dueAtMs() > resumedAtMs + 1000));
        assertThat(tasks.find(id).orElseThrow().state()).isEqualTo("ACTIVE");
      }
      assertThat(CliRun.ax("audit").out()).contains("task resume", "group g", "[commandId gr-1]");

      // A group without tasks is rejected with the reason; the CLI wants a task or a group.
      Commands.sendJson(
          producer,
          runtime,
          "nobody",
          "{\"v\":1,\"type\":\"PAUSE\",\"group\":\"nobody\",\"commandId\":\"gp-2\"}");
      assertThat(
              await()
                  .atMost(Duration.ofSeconds(30))
                  .until(() -> UserClients.reasons(rejected), r -> !r.isEmpty()))
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
    return "\"group\":\""
        + group
        + "\",\"trigger\":{\"type\":\"FIXED_RATE\",\"intervalMs\":1000},"
        + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"}";
  }
}
