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
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * CANCEL through the whole pipeline: a CRON task that fires every second is cancelled and fires no
 * more, its pending instance CANCELLED with an audit row; the same command again changes nothing,
 * and a CANCEL that cannot apply is rejected with its reason.
 */
@ExtendWith(AxInfraExtension.class)
class TaskCancelIT {

  private static final String EVERY_SECOND =
      "\"trigger\":{\"type\":\"CRON\",\"expression\":\"* * * * * ?\",\"zone\":\"UTC\"},"
          + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"}";

  @Test
  void aCancelledCronTaskFiresNoMoreAndACancelActsOnce(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env);
        RunningStages stages =
            RunningStages.on(runtime, "node-1").ingest(Map.of()).ticker().dispatcher();
        KafkaProducer<String, byte[]> producer = UserClients.producer(runtime);
        TopicReader rejected = UserClients.rejected(runtime)) {
      runtime.awaitGroupsAssigned(1, "ingest", "dispatcher");
      InstanceStore instances = new InstanceStore(runtime.dataSource());
      Commands.send(producer, runtime, "tick", EVERY_SECOND);
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> Commands.count(instances.findByTask("tick"), InstanceStatus.SUCCESS) >= 2);

      String cancel =
          "{\"v\":1,\"type\":\"CANCEL\",\"taskId\":\"tick\",\"commandId\":\"c-1\","
              + "\"reason\":\"created by mistake\"}";
      Commands.sendJson(producer, runtime, "tick", cancel);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> new TaskStore(runtime.dataSource()).find("tick").orElseThrow().state(),
              "CANCELLED"::equals);
      List<InstanceRow> atCancel = instances.findByTask("tick");
      assertThat(atCancel)
          .extracting(InstanceRow::status)
          .doesNotContain(InstanceStatus.SCHEDULED, InstanceStatus.DISPATCHED)
          .contains(InstanceStatus.CANCELLED);
      InstanceRow pending =
          atCancel.stream().filter(r -> r.status() == InstanceStatus.CANCELLED).findFirst().get();
      List<AuditLog.Transition> history =
          new AuditLog(runtime.dataSource()).history(pending.instanceId());
      assertThat(history)
          .last()
          .satisfies(
              t -> {
                assertThat(t.to()).isEqualTo(InstanceStatus.CANCELLED);
                assertThat(t.reason()).contains("command c-1").contains("created by mistake");
              });

      // The same command again, then another CANCEL of the task and one of an unknown task: only
      // the last two are rejected, and the task's instances stay as they were.
      Commands.sendJson(producer, runtime, "tick", cancel);
      Commands.sendJson(producer, runtime, "tick", cancel.replace("\"c-1\"", "\"c-2\""));
      Commands.sendJson(
          producer,
          runtime,
          "nobody",
          "{\"v\":1,\"type\":\"CANCEL\",\"taskId\":\"nobody\",\"commandId\":\"c-3\"}");
      List<String> reasons =
          await()
              .atMost(Duration.ofSeconds(30))
              .until(() -> UserClients.reasons(rejected), all -> all.size() >= 2);
      assertThat(reasons)
          .containsExactlyInAnyOrder(
              "task tick is cancelled already", "CANCEL for unknown task nobody");
      long recorded = Commands.appliedCommands(runtime, "tick");
      assertThat(recorded).as("c-1 applied once, c-2 refused").isEqualTo(1);

      // Fires no more: over three more seconds of a cron that fires every second, no new row.
      await()
          .during(Duration.ofSeconds(3))
          .atMost(Duration.ofSeconds(5))
          .until(() -> instances.findByTask("tick").size() == atCancel.size());
      assertThat(rejected.poll()).as("no other rejection").hasSize(2);
    }
  }
}
