package dev.ax.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.model.InstanceStatus;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * RUN_NOW through the whole pipeline: a task that fires once a day runs now, once per command id
 * however often the command comes, without touching its daily firing; while paused it is refused.
 */
@ExtendWith(AxInfraExtension.class)
class TaskRunNowIT {

  @Test
  void runNowAddsOneRunPerCommandAndIsRefusedWhilePaused(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env);
        RunningStages stages = RunningStages.on(runtime, "node-1").ingest().ticker().dispatcher();
        KafkaProducer<String, byte[]> producer = UserClients.producer(runtime);
        TopicReader rejected = UserClients.rejected(runtime)) {
      runtime.awaitGroupsAssigned(1, "ingest", "dispatcher");
      InstanceStore instances = new InstanceStore(runtime.dataSource());
      Commands.send(
          producer,
          runtime,
          "nightly",
          "\"trigger\":{\"type\":\"CRON\",\"expression\":\"0 0 3 * * ?\",\"zone\":\"UTC\"},"
              + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"}");
      InstanceRow daily = Commands.awaitFirstInstance(runtime, "nightly", r -> true);

      String runNow =
          "{\"v\":1,\"type\":\"RUN_NOW\",\"taskId\":\"nightly\",\"commandId\":\"rn-1\"}";
      Commands.sendJson(producer, runtime, "nightly", runNow);
      Commands.sendJson(producer, runtime, "nightly", runNow);
      Commands.sendJson(producer, runtime, "nightly", runNow.replace("rn-1", "rn-2"));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> extraRuns(instances).stream().filter(this::succeeded).count() == 2);
      // The repeated command stays one run; the daily firing is untouched.
      await()
          .during(Duration.ofSeconds(2))
          .atMost(Duration.ofSeconds(4))
          .until(() -> extraRuns(instances).size() == 2);
      assertThat(extraRuns(instances))
          .extracting(InstanceRow::instanceId)
          .containsExactlyInAnyOrder("nightly@run:rn-1", "nightly@run:rn-2");
      assertThat(instances.find(daily.instanceId()).orElseThrow().status())
          .isEqualTo(InstanceStatus.SCHEDULED);
      assertThat(instances.findByTask("nightly")).hasSize(3);

      Commands.sendJson(
          producer,
          runtime,
          "nightly",
          "{\"v\":1,\"type\":\"PAUSE\",\"taskId\":\"nightly\",\"commandId\":\"p-1\"}");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> new TaskStore(runtime.dataSource()).find("nightly").orElseThrow().state(),
              "PAUSED"::equals);
      Commands.sendJson(producer, runtime, "nightly", runNow.replace("rn-1", "rn-3"));
      String reason =
          await()
              .atMost(Duration.ofSeconds(30))
              .until(() -> UserClients.reasons(rejected), all -> !all.isEmpty())
              .get(0);
      assertThat(reason).isEqualTo("RUN_NOW of task nightly, which is PAUSED (resume it first)");
      assertThat(extraRuns(instances)).hasSize(2);
    }
  }

  private boolean succeeded(InstanceRow row) {
    return row.status() == InstanceStatus.SUCCESS;
  }

  private static List<InstanceRow> extraRuns(InstanceStore instances) {
    return instances.findByTask("nightly").stream()
        .filter(r -> r.instanceId().contains("@run:"))
        .toList();
  }
}
