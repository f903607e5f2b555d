package dev.ax.ticker;

import static dev.ax.ticker.InstanceAssertions.assertAllIn;
import static dev.ax.ticker.InstanceAssertions.assertFiredOnce;
import static dev.ax.ticker.LeaderAndStandby.emitAheadMs;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskDueEvent;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.Trigger;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Two tickers on one database: the leader is killed mid-stream and the standby takes over. */
@ExtendWith(AxInfraExtension.class)
class TickerFailoverIT {

  private static final int INSTANCES = 300;
  private static final long SPREAD_MS = 8_000;

  @Test
  void theStandbyTakesOverAndNothingFiresTwiceOrIsLost(AxTestEnv env) {
    try (TestRuntime runtime = TestRuntime.open(env, LeaderAndStandby.FAST_FAILOVER)) {
      long startMs = runtime.clock().millis() + 1000;
      List<NewTask> tasks = new ArrayList<>();
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < INSTANCES; i++) {
        long dueAtMs = startMs + i * SPREAD_MS / INSTANCES;
        String taskId = "f" + i;
        tasks.add(
            new NewTask(
                TestTasks.noop(taskId, Trigger.Once.at(Instant.ofEpochMilli(dueAtMs))),
                "trace-" + taskId,
                dueAtMs));
        ids.add(InstanceIds.of(taskId, dueAtMs));
      }
      new TaskStore(runtime.dataSource()).create(tasks, "test", startMs);
      try (LeaderAndStandby tickers = LeaderAndStandby.start(runtime);
          TopicReader due = new TopicReader(runtime.bootstrapServers(), runtime.topics().due())) {
        await().atMost(Duration.ofSeconds(30)).until(() -> due.poll().size() >= INSTANCES / 4);
        long killedAtMs = runtime.clock().millis();
        tickers.crashLeader();
        long takenOverAtMs = runtime.clock().millis();

        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () ->
                    due.poll().stream()
                            .map(r -> AxJson.read(r.value(), TaskDueEvent.class).instanceId())
                            .distinct()
                            .count()
                        >= INSTANCES);
        // Anything fired twice would arrive within the next poll.
        due.poll();
        Map<String, List<Long>> epochsByInstance = new HashMap<>();
        Map<Long, Integer> byEpoch = new HashMap<>();
        for (var record : due.poll()) {
          TaskDueEvent event = AxJson.read(record.value(), TaskDueEvent.class);
          epochsByInstance
              .computeIfAbsent(event.instanceId(), k -> new ArrayList<>())
              .add(event.epoch());
          byEpoch.merge(event.epoch(), 1, Integer::sum);
          assertThat(event.emittedAtMs())
              .isGreaterThanOrEqualTo(event.dueAtMs() - emitAheadMs(runtime));
        }
        assertThat(epochsByInstance.keySet()).containsExactlyInAnyOrderElementsOf(ids);
        // Nobody claims in this test, so the new leader emits again, once, at its own epoch,
        // what the old one had dispatched: at most one event per instance and epoch.
        assertThat(epochsByInstance.values())
            .allSatisfy(
                epochs -> assertThat(epochs).doesNotHaveDuplicates().hasSizeLessThanOrEqualTo(2));
        assertThat(byEpoch).as("events by epoch").hasSize(2);
        assertFiredOnce(runtime, ids);
        assertAllIn(runtime, ids, InstanceStatus.DISPATCHED);
        System.out.printf(
            "TickerFailoverIT: hand-over took %d ms (lease 3 s, heartbeat 500 ms); events by epoch %s%n",
            takenOverAtMs - killedAtMs, byEpoch);
      }
    }
  }
}
