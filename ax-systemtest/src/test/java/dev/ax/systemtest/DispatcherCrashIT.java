package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.AuditLog;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.testing.StatusPath;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TopicReader;
import dev.ax.dispatcher.DispatcherConfig;
import dev.ax.dispatcher.DispatcherMain;
import dev.ax.dispatcher.DispatcherStage;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A dispatcher process killed with SIGKILL in the middle of its runs: after their lease expires the
 * reaper takes them back and the surviving dispatcher runs them as the next attempt. No attempt
 * runs twice and nothing is lost.
 */
@ExtendWith(AxInfraExtension.class)
class DispatcherCrashIT {

  private static final int TASKS = 8;
  private static final String LEASE = "5s";

  @Test
  void runsOfAKilledDispatcherAreTakenBackAndRunElsewhereAsTheNextAttempt(AxTestEnv env)
      throws Exception {
    Map<String, String> config =
        Map.of("AX_DISPATCHER_LEASE", LEASE, "AX_REAPER_INTERVAL", "200ms");
    Process victim = null;
    try (TestRuntime runtime = TestRuntime.open(env, config);
        RunningStages core = RunningStages.on(runtime, "core").ingest().ticker();
        KafkaProducer<String, byte[]> producer = UserClients.producer(runtime);
        TopicReader completed = UserClients.completed(runtime)) {
      victim = startDispatcherProcess(env, "victim");
      runtime.awaitGroupsAssigned(1, "ingest", "dispatcher");

      for (int i = 0; i < TASKS; i++) {
        String taskId = "crash-" + i;
        String json =
            "{\"v\":1,\"taskId\":\""
                + taskId
                + "\",\"trigger\":{\"type\":\"ONCE\",\"delayMs\":0},"
                + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"sleep\"},"
                + "\"params\":{\"sleepMs\":\"6000\"},\"timeoutMs\":30000}";
        producer.send(
            new ProducerRecord<>(
                runtime.topics().commands(), taskId, json.getBytes(StandardCharsets.UTF_8)));
      }
      producer.flush();
      InstanceStore instances = new InstanceStore(runtime.dataSource());
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> instances.countByStatus().getOrDefault(InstanceStatus.RUNNING, 0L) == TASKS);

      try (DispatcherStage survivor =
          new DispatcherStage(runtime.context("survivor"), DispatcherConfig.from(runtime.config()))
              .start()) {
        victim.destroyForcibly(); // SIGKILL: no shutdown hook, no hand-back, no outcome
        assertThat(victim.waitFor()).isNotZero();

        await().atMost(Duration.ofSeconds(90)).until(() -> completed.poll().size() >= TASKS);
      }

      List<TaskCompletedEvent> events = new ArrayList<>();
      for (ConsumerRecord<String, byte[]> record : completed.poll()) {
        events.add(AxJson.read(record.value(), TaskCompletedEvent.class));
      }
      assertThat(events).hasSize(TASKS);
      assertThat(events)
          .allSatisfy(
              event -> {
                assertThat(event.status()).isEqualTo(InstanceStatus.SUCCESS);
                assertThat(event.attempt()).isEqualTo(2);
              });
      AuditLog audit = new AuditLog(runtime.dataSource());
      for (int i = 0; i < TASKS; i++) {
        InstanceRow row = instances.findByTask("crash-" + i).get(0);
        assertThat(row.status()).isEqualTo(InstanceStatus.SUCCESS);
        assertThat(row.owner()).isEqualTo("survivor");
        List<AuditLog.Transition> history = audit.history(row.instanceId());
        assertThat(StatusPath.of(history))
            .containsExactly(
                InstanceStatus.SCHEDULED,
                InstanceStatus.DISPATCHED,
                InstanceStatus.RUNNING,
                InstanceStatus.DISPATCHED,
                InstanceStatus.RUNNING,
                InstanceStatus.SUCCESS);
        assertThat(history.get(2).actor()).isEqualTo("victim");
        assertThat(history.get(2).attempt()).isEqualTo(1);
        assertThat(history.get(4).actor()).isEqualTo("survivor");
        assertThat(history.get(4).attempt()).isEqualTo(2);
      }
    } finally {
      if (victim != null) {
        victim.destroyForcibly();
      }
    }
  }

  private static Process startDispatcherProcess(AxTestEnv env, String nodeId) throws Exception {
    return StageProcess.start(
        env, DispatcherMain.class, nodeId, Map.of("AX_DISPATCHER_LEASE", LEASE));
  }
}
