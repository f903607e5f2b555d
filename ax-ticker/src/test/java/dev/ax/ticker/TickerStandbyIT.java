package dev.ax.ticker;

import static dev.ax.ticker.LeaderAndStandby.emitAheadMs;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskDueEvent;
import dev.ax.common.contract.TaskScheduledEvent;
import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.Trigger;
import dev.ax.common.model.TriggerGroups;
import dev.ax.common.store.CreateResult;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TestTasks;
import dev.ax.common.testing.TopicReader;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two tickers, no fault: every announcement reaches the leader, whichever partition it is on. The
 * window loader runs only every 5 minutes here, so an announcement the leader never read would fire
 * only at its next full load, long after this test's deadline.
 */
@ExtendWith(AxInfraExtension.class)
class TickerStandbyIT {

  private static final int TASKS = 60;

  @Test
  void aStandbyTickerTakesNoAnnouncementFromTheLeader(AxTestEnv env) throws Exception {
    Map<String, String> config =
        Map.of(
            "AX_TICKER_LEASE", "3s",
            "AX_TICKER_HEARTBEAT", "500ms",
            "AX_TICKER_LOAD_INTERVAL", "5m");
    try (TestRuntime runtime = TestRuntime.open(env, config);
        LeaderAndStandby tickers = LeaderAndStandby.start(runtime);
        KafkaProducer<String, byte[]> producer =
            KafkaClients.producer(runtime.kafka(), "announcer");
        TopicReader due = new TopicReader(runtime.bootstrapServers(), runtime.topics().due())) {
      // Created and announced after both tickers run (and after the leader's first load), due
      // in 2 s: only the announcements can bring them to the leader before its next load.
      long dueAtMs = runtime.clock().millis() + 2_000;
      List<NewTask> tasks = new ArrayList<>();
      Set<String> ids = new HashSet<>();
      for (int i = 0; i < TASKS; i++) {
        String taskId = "standby-" + i;
        tasks.add(
            new NewTask(
                TestTasks.noop(taskId, Trigger.Once.at(Instant.ofEpochMilli(dueAtMs + i))),
                "trace-" + taskId,
                dueAtMs + i));
        ids.add(InstanceIds.of(taskId, dueAtMs + i));
      }
      CreateResult created =
          new TaskStore(runtime.dataSource()).create(tasks, "test", runtime.clock().millis());
      for (NewTask task : tasks) {
        String taskId = task.spec().taskId();
        String instanceId = InstanceIds.of(taskId, task.firstDueAtMs());
        TaskScheduledEvent event =
            new TaskScheduledEvent(
                AxJson.VERSION,
                taskId,
                instanceId,
                task.firstDueAtMs(),
                task.traceId(),
                created.seqByInstanceId().get(instanceId),
                TriggerGroups.keyOf(task.spec().trigger()));
        producer.send(
            new ProducerRecord<>(runtime.topics().scheduled(), taskId, AxJson.write(event)));
      }
      producer.flush();

      Set<String> fired = new HashSet<>();
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                due.poll().stream()
                    .map(r -> AxJson.read(r.value(), TaskDueEvent.class))
                    .forEach(
                        e -> {
                          assertThat(e.emittedAtMs())
                              .isGreaterThanOrEqualTo(e.dueAtMs() - emitAheadMs(runtime));
                          fired.add(e.instanceId());
                        });
                assertThat(fired).containsExactlyInAnyOrderElementsOf(ids);
              });
    }
  }
}
