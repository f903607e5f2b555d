package dev.ax.ticker;

import static dev.ax.ticker.InstanceAssertions.assertFiredOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskDueEvent;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TestTasks;
import dev.ax.common.testing.TopicReader;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Recovery of the wheel-based ticker on the real broker and database. */
@ExtendWith(AxInfraExtension.class)
class TickerRecoveryIT {

  /**
   * Slots of the every-second cron task the leader fires before it crashes: enough to show it fires
   * steadily.
   */
  private static final int FIRED_BEFORE_CRASH = 5;

  /**
   * Slots awaited in all: some ten seconds after the crash, which cover the hand-over (a 3 s lease
   * and a 500 ms heartbeat, {@link LeaderAndStandby#FAST_FAILOVER}) and leave the new leader
   * several slots of its own after the ones it catches up.
   */
  private static final int SLOTS = 15;

  private static TaskSpec spec(String taskId, Trigger trigger) {
    return TestTasks.noop(taskId, trigger);
  }

  /**
   * The epochs each instance's due events carried. Nobody claims in these tests, so a new leader
   * emits again, once, at its own epoch, what the previous one dispatched: an instance fired twice
   * shows as two events of one epoch.
   */
  private static Map<String, List<Long>> epochsByInstance(
      List<ConsumerRecord<String, byte[]>> records) {
    Map<String, List<Long>> epochs = new HashMap<>();
    for (ConsumerRecord<String, byte[]> record : records) {
      TaskDueEvent event = AxJson.read(record.value(), TaskDueEvent.class);
      epochs.computeIfAbsent(event.instanceId(), k -> new ArrayList<>()).add(event.epoch());
    }
    return epochs;
  }

  @Test
  void aCronTaskEverySecondFiresWithoutGapOrDuplicateAcrossALeaderChange(AxTestEnv env) {
    try (TestRuntime runtime = TestRuntime.open(env, LeaderAndStandby.FAST_FAILOVER)) {
      Trigger.Cron everySecond = new Trigger.Cron("0/1 * * * * ?", ZoneOffset.UTC);
      long nowMs = runtime.clock().millis();
      long firstMs =
          new FireTimes()
              .first(everySecond, Instant.ofEpochMilli(nowMs))
              .orElseThrow()
              .toEpochMilli();
      new TaskStore(runtime.dataSource())
          .create(
              List.of(new NewTask(spec("every-second", everySecond), "tr", firstMs)),
              "test",
              nowMs);
      try (LeaderAndStandby tickers = LeaderAndStandby.start(runtime);
          TopicReader due = new TopicReader(runtime.bootstrapServers(), runtime.topics().due())) {
        await().atMost(Duration.ofSeconds(30)).until(() -> due.poll().size() >= FIRED_BEFORE_CRASH);
        tickers.crashLeader();
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> epochsByInstance(due.poll()).size() >= SLOTS);

        Map<String, List<Long>> epochs = epochsByInstance(due.poll());
        TreeMap<Long, List<Long>> bySlot = new TreeMap<>();
        epochs.forEach((id, e) -> bySlot.put(Long.parseLong(id.substring(id.indexOf('@') + 1)), e));
        List<Long> expected = new ArrayList<>();
        for (long slot = bySlot.firstKey(); slot <= bySlot.lastKey(); slot += 1000) {
          expected.add(slot);
        }
        assertThat(bySlot.keySet()).as("every second, no gap").containsExactlyElementsOf(expected);
        assertThat(bySlot.values())
            .as("no duplicate")
            .allSatisfy(e -> assertThat(e).doesNotHaveDuplicates());
        assertFiredOnce(runtime, epochs.keySet());
        assertThat(bySlot.size()).isGreaterThanOrEqualTo(SLOTS);
      }
    }
  }

  @Test
  void aRestartedTickerRebuildsTenThousandPendingInstancesAndFiresEachOnce(AxTestEnv env) {
    int count = 10_000;
    try (TestRuntime runtime = TestRuntime.open(env, LeaderAndStandby.FAST_FAILOVER)) {
      long nowMs = runtime.clock().millis();
      List<NewTask> tasks = new ArrayList<>();
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        long dueAtMs =
            nowMs - 2_000 + (i % 8_000); // some overdue at start, the rest over the next 6 s
        tasks.add(
            new NewTask(
                spec("p" + i, Trigger.Once.at(Instant.ofEpochMilli(dueAtMs))), "tr", dueAtMs));
        ids.add(InstanceIds.of("p" + i, dueAtMs));
      }
      TaskStore store = new TaskStore(runtime.dataSource());
      for (int from = 0; from < count; from += 1000) {
        store.create(tasks.subList(from, from + 1000), "test", nowMs);
      }

      try (TopicReader due = new TopicReader(runtime.bootstrapServers(), runtime.topics().due())) {
        TickerStage first =
            new TickerStage(runtime.context("ticker-a"), TickerConfig.from(runtime.config()))
                .start();
        await().atMost(Duration.ofSeconds(30)).until(() -> due.poll().size() >= 100);
        first.close(); // a clean restart: the lease is released
        try (TickerStage restarted =
            new TickerStage(runtime.context("ticker-a"), TickerConfig.from(runtime.config()))
                .start()) {
          await()
              .atMost(Duration.ofSeconds(90))
              .until(() -> epochsByInstance(due.poll()).size() >= count);
          due.poll();
          Map<String, List<Long>> epochs = epochsByInstance(due.poll());
          assertThat(epochs.keySet()).containsExactlyInAnyOrderElementsOf(ids);
          assertThat(epochs.values()).allSatisfy(e -> assertThat(e).doesNotHaveDuplicates());
          assertFiredOnce(runtime, ids);
        }
      }
    }
  }
}
