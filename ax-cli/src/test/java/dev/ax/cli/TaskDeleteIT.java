package dev.ax.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.AuditLog;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TopicReader;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.AfterEach;
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

  private static final String EVERY_SECOND =
      "\"trigger\":{\"type\":\"CRON\",\"expression\":\"* * * * * ?\",\"zone\":\"UTC\"},"
          + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"}";

  @AfterEach
  void clearProperties() {
    CliRun.clear();
  }

  @Test
  void aDeletedCronTaskFiresNoMoreIsHiddenAndTakesNoFurtherCommand(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env);
        RunningStages stages = RunningStages.on(runtime, "node-1").ingest().ticker().dispatcher();
        KafkaProducer<String, byte[]> producer = UserClients.producer(runtime);
        TopicReader rejected = UserClients.rejected(runtime)) {
      runtime.awaitGroupsAssigned(1, "ingest", "dispatcher");
      CliRun.pointAt(env, runtime);
      InstanceStore instances = new InstanceStore(runtime.dataSource());
      TaskStore tasks = new TaskStore(runtime.dataSource());
      Commands.send(producer, runtime, "tick", EVERY_SECOND);
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> Commands.count(instances.findByTask("tick"), InstanceStatus.SUCCESS) >= 2);

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
      assertThat(delete.exitCode()).as(delete.err()).isZero();
      assertThat(delete.out()).contains("sent DELETE for task tick (commandId d-1)");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> tasks.find("tick").orElseThrow().state(), "DELETED"::equals);
      List<InstanceRow> atDelete = instances.findByTask("tick");
      assertThat(atDelete)
          .extracting(InstanceRow::status)
          .doesNotContain(InstanceStatus.SCHEDULED, InstanceStatus.DISPATCHED)
          .contains(InstanceStatus.CANCELLED);
      InstanceRow pending =
          atDelete.stream().filter(r -> r.status() == InstanceStatus.CANCELLED).findFirst().get();
      assertThat(new AuditLog(runtime.dataSource()).history(pending.instanceId()))
          .last()
          .satisfies(
              t -> {
                assertThat(t.to()).isEqualTo(InstanceStatus.CANCELLED);
                assertThat(t.reason())
                    .contains("deleted by command d-1")
                    .contains("created by mistake (by alice)");
              });

      // Hidden from the list unless asked for; shown, with its history, by show.
      assertThat(CliRun.ax("task", "list").out()).doesNotContain("tick").contains("0 task(s)");
      assertThat(CliRun.ax("task", "list", "--state", "deleted").out())
          .contains("tick", "DELETED", "1 task(s)");
      CliRun show = CliRun.ax("task", "show", "tick");
      assertThat(show.exitCode()).as(show.err()).isZero();
      assertThat(show.out())
          .contains("task tick (DELETED, version 1)")
          .contains("DELETE  d-1")
          .contains("CANCELLED", "SUCCESS");
      assertThat(CliRun.ax("audit").out()).contains("alice", "task delete", "[commandId d-1]");

      // The same DELETE again acts not at all; a new DELETE, a RESUME, a CANCEL are refused; a
      // CREATE of the id is a duplicate create (ignored, as for any existing id).
      assertThat(CliRun.ax("task", "delete", "tick", "--command-id", "d-1").exitCode()).isZero();
      Commands.sendJson(
          producer, runtime, "tick", "{\"v\":1,\"type\":\"DELETE\",\"taskId\":\"tick\"}");
      Commands.sendJson(
          producer,
          runtime,
          "tick",
          "{\"v\":1,\"type\":\"RESUME\",\"taskId\":\"tick\",\"commandId\":\"r-1\"}");
      Commands.sendJson(
          producer,
          runtime,
          "tick",
          "{\"v\":1,\"type\":\"CANCEL\",\"taskId\":\"tick\",\"commandId\":\"c-1\"}");
      Commands.send(producer, runtime, "tick", EVERY_SECOND);
      Commands.sendJson(
          producer,
          runtime,
          "nobody",
          "{\"v\":1,\"type\":\"DELETE\",\"taskId\":\"nobody\",\"commandId\":\"d-2\"}");
      List<String> reasons =
          await()
              .atMost(Duration.ofSeconds(30))
              .until(() -> UserClients.reasons(rejected), all -> all.size() >= 4);
      assertThat(reasons)
          .containsExactlyInAnyOrder(
              "task tick is deleted already",
              "RESUME of task tick, which is DELETED",
              "CANCEL of task tick, which is DELETED",
              "DELETE for unknown task nobody");
      long recorded = Commands.appliedCommands(runtime, "tick");
      assertThat(recorded).as("d-1 applied once, every later command refused").isEqualTo(1);

      // Fires no more: over three more seconds of a cron that fires every second, no new row.
      await()
          .during(Duration.ofSeconds(3))
          .atMost(Duration.ofSeconds(5))
          .until(() -> instances.findByTask("tick").size() == atDelete.size());
      assertThat(tasks.find("tick").orElseThrow().state()).isEqualTo("DELETED");
      assertThat(rejected.poll()).as("no other rejection").hasSize(4);
    }
  }
}
