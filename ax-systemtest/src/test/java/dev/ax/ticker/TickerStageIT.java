package dev.ax.ticker;

import static dev.ax.ticker.InstanceAssertions.assertAllIn;
import static dev.ax.ticker.LeaderAndStandby.emitAheadMs;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskDueEvent;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.store.AuditLog;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TestTasks;
import dev.ax.common.testing.TopicReader;
import dev.ax.dispatcher.store.ClaimStore;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(AxInfraExtension.class)
class TickerStageIT {

  private static final Duration DEADLINE = Duration.ofSeconds(30);

  private TestRuntime runtime;
  private TickerStage ticker;

  @AfterEach
  void tearDown() {
    if (ticker != null) {
      ticker.close();
    }
    runtime.close();
  }

  private void store(String taskId, long dueAtMs) {
    TaskSpec spec =
        TestTasks.noop(taskId, Trigger.Once.at(java.time.Instant.ofEpochMilli(dueAtMs)));
    new TaskStore(runtime.dataSource())
        .create(List.of(new NewTask(spec, "trace-" + taskId, dueAtMs)), "test", dueAtMs);
  }

  @Test
  void firesEachInstanceNeverBeforeItsDueTimeLessTheEmitAhead(AxTestEnv env) {
    runtime = TestRuntime.open(env, Map.of("AX_TICKER_LOAD_INTERVAL", "200ms"));
    long now = runtime.clock().millis();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      long dueAtMs = now + 1000 + i * 50L;
      store("t" + i, dueAtMs);
      ids.add(InstanceIds.of("t" + i, dueAtMs));
    }

    ticker =
        new TickerStage(runtime.context("ticker-1"), TickerConfig.from(runtime.config())).start();

    try (TopicReader due = new TopicReader(runtime.bootstrapServers(), runtime.topics().due())) {
      await().atMost(DEADLINE).until(() -> due.poll().size() >= ids.size());
      List<TaskDueEvent> events =
          due.poll().stream().map(r -> AxJson.read(r.value(), TaskDueEvent.class)).toList();
      assertThat(events)
          .extracting(TaskDueEvent::instanceId)
          .containsExactlyInAnyOrderElementsOf(ids);
      for (TaskDueEvent event : events) {
        assertThat(event.emittedAtMs())
            .as("emitted at, %s, never before its due time less the emit-ahead", event.instanceId())
            .isGreaterThanOrEqualTo(event.dueAtMs() - emitAheadMs(runtime));
        assertThat(event.epoch()).isPositive();
      }
    }
    assertAllIn(runtime, ids, InstanceStatus.DISPATCHED);
  }

  @Test
  void overdueInstancesFireAtStartOldestFirst(AxTestEnv env) {
    runtime = TestRuntime.open(env, Map.of("AX_TICKER_MAX_BATCH", "1"));
    long now = runtime.clock().millis();
    long[] ages = {3000, 1000, 5000, 2000, 4000};
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < ages.length; i++) {
      store("late" + i, now - ages[i]);
      ids.add(InstanceIds.of("late" + i, now - ages[i]));
    }

    ticker =
        new TickerStage(runtime.context("ticker-1"), TickerConfig.from(runtime.config())).start();

    InstanceStore instances = new InstanceStore(runtime.dataSource());
    await()
        .atMost(DEADLINE)
        .until(
            () ->
                ids.stream()
                    .allMatch(
                        id ->
                            instances.find(id).orElseThrow().status()
                                == InstanceStatus.DISPATCHED));
    AuditLog audit = new AuditLog(runtime.dataSource());
    List<String> dispatchOrder =
        ids.stream()
            .sorted(
                Comparator.comparingLong(
                    id ->
                        audit.history(id).stream()
                            .filter(t -> t.to() == InstanceStatus.DISPATCHED)
                            .findFirst()
                            .orElseThrow()
                            .id()))
            .toList();
    List<String> dueOrder =
        ids.stream()
            .sorted(
                Comparator.comparingLong(id -> Long.parseLong(id.substring(id.indexOf('@') + 1))))
            .toList();
    assertThat(dispatchOrder).isEqualTo(dueOrder);
  }

  @Test
  void anInstanceAlreadyDispatchedAndClaimedElsewhereIsNotEmittedAgain(AxTestEnv env) {
    runtime = TestRuntime.open(env);
    long now = runtime.clock().millis();
    store("taken", now - 10);
    store("free", now - 5);
    String taken = InstanceIds.of("taken", now - 10);
    runtime.markDispatchedAsLeader("other-ticker", List.of(taken), now);
    new ClaimStore(runtime.dataSource()).claim(List.of(taken), "dispatcher", now + 60_000, now);

    ticker =
        new TickerStage(runtime.context("ticker-1"), TickerConfig.from(runtime.config())).start();

    try (TopicReader due = new TopicReader(runtime.bootstrapServers(), runtime.topics().due())) {
      await().atMost(DEADLINE).until(() -> !due.poll().isEmpty());
      List<ConsumerRecord<String, byte[]>> records = due.poll();
      assertThat(records).extracting(ConsumerRecord::key).containsExactly("free");
    }
  }
}
