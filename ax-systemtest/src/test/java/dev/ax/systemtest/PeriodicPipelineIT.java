package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TopicReader;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Periodic triggers through the whole pipeline: fixed rate, fixed delay, cron, non-concurrent. */
@ExtendWith(AxInfraExtension.class)
class PeriodicPipelineIT {

  /** Periods shorter than AX_MIN_INTERVAL's default (1 s) keep this test fast. */
  private static final Map<String, String> FAST_PERIODS = Map.of("AX_MIN_INTERVAL", "100ms");

  @Test
  void periodicTasksChainWithoutGapsDuplicatesOrOverlaps(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env);
        RunningStages stages =
            RunningStages.on(runtime, "node-1").ingest(FAST_PERIODS).ticker().dispatcher()) {
      runtime.awaitGroupsAssigned(1, "ingest", "dispatcher");
      Map<String, String> commands =
          Map.of(
              "rate",
              "{\"v\":1,\"taskId\":\"rate\",\"trigger\":{\"type\":\"FIXED_RATE\",\"intervalMs\":1000},"
                  + "\"overlap\":\"ALLOW_ALL\","
                  + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"},\"timeoutMs\":5000}",
              "delay",
              "{\"v\":1,\"taskId\":\"delay\",\"trigger\":{\"type\":\"FIXED_DELAY\",\"intervalMs\":500},"
                  + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"sleep\"},\"params\":{\"sleepMs\":300},"
                  + "\"timeoutMs\":5000}",
              "cron",
              "{\"v\":1,\"taskId\":\"cron\",\"trigger\":{\"type\":\"CRON\",\"expression\":\"0/2 * * * * ?\","
                  + "\"zone\":\"Europe/Berlin\"},\"overlap\":\"ALLOW_ALL\",\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"},"
                  + "\"timeoutMs\":5000}",
              "lonely",
              "{\"v\":1,\"taskId\":\"lonely\",\"trigger\":{\"type\":\"FIXED_RATE\",\"intervalMs\":500},"
                  + "\"concurrent\":false,\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"sleep\"},"
                  + "\"params\":{\"sleepMs\":1200},\"timeoutMs\":5000}");
      try (KafkaProducer<String, byte[]> producer =
          dev.ax.common.kafka.KafkaClients.producer(runtime.kafka(), "user")) {
        for (Map.Entry<String, String> command : commands.entrySet()) {
          producer
              .send(
                  new ProducerRecord<>(
                      runtime.topics().commands(),
                      command.getKey(),
                      command.getValue().getBytes(StandardCharsets.UTF_8)))
              .get();
        }
      }

      List<TaskCompletedEvent> events = new ArrayList<>();
      try (TopicReader completed =
          new TopicReader(runtime.bootstrapServers(), runtime.topics().completed())) {
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () -> {
                  events.clear();
                  // Runs only: the lonely task's skipped firings have events too (SKIPPED).
                  completed.poll().stream()
                      .map(r -> AxJson.read(r.value(), TaskCompletedEvent.class))
                      .filter(e -> e.status() != InstanceStatus.SKIPPED)
                      .forEach(events::add);
                  return byTask(events, "cron").size() >= 4
                      && byTask(events, "rate").size() >= 6
                      && byTask(events, "delay").size() >= 6
                      && byTask(events, "lonely").size() >= 3;
                });
      }

      Set<String> instanceIds = new HashSet<>();
      for (TaskCompletedEvent event : events) {
        assertThat(instanceIds.add(event.instanceId()))
            .as("duplicate run of %s", event.instanceId())
            .isTrue();
        assertThat(event.status()).isEqualTo(InstanceStatus.SUCCESS);
        assertThat(event.startedAtMs()).isGreaterThanOrEqualTo(event.dueAtMs());
      }
      List<TaskCompletedEvent> rate = byTask(events, "rate");
      for (int i = 1; i < rate.size(); i++) {
        assertThat(rate.get(i).dueAtMs() - rate.get(i - 1).dueAtMs())
            .as("fixed rate step")
            .isEqualTo(1000);
      }
      List<TaskCompletedEvent> cron = byTask(events, "cron");
      for (int i = 1; i < cron.size(); i++) {
        assertThat(cron.get(i).dueAtMs() - cron.get(i - 1).dueAtMs())
            .as("cron step")
            .isEqualTo(2000);
        assertThat(cron.get(i).dueAtMs() % 2000).isZero();
      }
      List<TaskCompletedEvent> delay = byTask(events, "delay");
      for (int i = 1; i < delay.size(); i++) {
        assertThat(delay.get(i).dueAtMs())
            .as("fixed delay: due 500 ms after the previous run ended")
            .isEqualTo(delay.get(i - 1).finishedAtMs() + 500);
      }
      List<TaskCompletedEvent> lonely = byTask(events, "lonely");
      for (int i = 1; i < lonely.size(); i++) {
        assertThat(lonely.get(i).startedAtMs())
            .as("a non-concurrent task never overlaps itself")
            .isGreaterThanOrEqualTo(lonely.get(i - 1).finishedAtMs());
      }
      List<InstanceRow> lonelyRows = new InstanceStore(runtime.dataSource()).findByTask("lonely");
      assertThat(lonelyRows).extracting(InstanceRow::status).contains(InstanceStatus.SKIPPED);
    }
  }

  private static List<TaskCompletedEvent> byTask(List<TaskCompletedEvent> events, String taskId) {
    return events.stream()
        .filter(e -> e.taskId().equals(taskId))
        .sorted(Comparator.comparingLong(TaskCompletedEvent::dueAtMs))
        .collect(Collectors.toList());
  }
}
