package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskDueEvent;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.AfterFailure;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.Outcome;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TestTasks;
import dev.ax.common.testing.TopicReader;
import dev.ax.dispatcher.store.ClaimStore;
import dev.ax.dispatcher.store.ClaimedInstance;
import dev.ax.dispatcher.store.OutcomeStore;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.retry.RetryConfig;
import dev.ax.retry.RetryMain;
import dev.ax.retry.RetryStage;
import dev.ax.ticker.TickerConfig;
import dev.ax.ticker.TickerStage;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The retry stage killed with SIGKILL while 1,000 retries are pending and coming due: its successor
 * rebuilds them from the database and every one is dispatched exactly once.
 */
@ExtendWith(AxInfraExtension.class)
class RetryRestartIT {

  private static final int PENDING = 1_000;

  @Test
  void aKilledRetryStageLeavesNothingLostAndNothingTwice(AxTestEnv env) throws Exception {
    Map<String, String> config =
        Map.of(
            // The kill lands mid-stream at any rate (it waits for the first 150); a higher one
            // only shortens the wait for the rest.
            "AX_RETRY_RATE", "250",
            // Nobody claims in this test, so everything dispatched stays in flight.
            "AX_RETRY_MAX_IN_FLIGHT", "5000",
            "AX_RETRY_RESCAN", "1s",
            "AX_REAPER_INTERVAL", "500ms",
            "AX_REAPER_UNCLAIMED_AFTER", "2s");
    Process victim = null;
    try (TestRuntime runtime = TestRuntime.open(env, config);
        TopicReader dueRetry =
            new TopicReader(runtime.bootstrapServers(), runtime.topics().dueRetry());
        TopicReader due = new TopicReader(runtime.bootstrapServers(), runtime.topics().due())) {
      pendingRetries(runtime);
      victim = StageProcess.start(env, RetryMain.class, "retry-victim", config);
      // At 250/s the 1,000 take four seconds: kill it a little way in.
      await().atMost(Duration.ofSeconds(60)).until(() -> dueRetry.poll().size() >= 150);
      victim.destroyForcibly();
      assertThat(victim.waitFor()).isNotZero();
      int beforeRestart = dueRetry.poll().size();
      assertThat(beforeRestart).isLessThan(PENDING);

      // The ticker's reaper emits again anything the victim dispatched but did not get to emit.
      try (TickerStage ticker =
              new TickerStage(runtime.context("ticker"), TickerConfig.from(runtime.config()))
                  .start();
          RetryStage successor =
              new RetryStage(runtime.context("retry-successor"), RetryConfig.from(runtime.config()))
                  .start()) {
        await()
            .atMost(Duration.ofSeconds(90))
            .until(
                () ->
                    new InstanceStore(runtime.dataSource())
                            .countByStatus()
                            .getOrDefault(InstanceStatus.DISPATCHED, 0L)
                        == PENDING);
      }
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> union(dueRetry.poll(), due.poll()).size() >= PENDING);
      dueRetry.poll(); // a second emit by the retry stage would be here by now
      Map<String, Integer> emitted = new HashMap<>();
      for (ConsumerRecord<String, byte[]> record : dueRetry.poll()) {
        emitted.merge(
            AxJson.read(record.value(), TaskDueEvent.class).instanceId(), 1, Integer::sum);
      }
      Set<String> all = union(dueRetry.poll(), due.poll());
      System.out.printf(
          "Retry restart: %d emitted before the kill, %d by the retry stages in all, %d only by"
              + " the reaper%n",
          beforeRestart, emitted.size(), all.size() - emitted.size());
      assertThat(all).as("every retry reached a due topic").hasSize(PENDING);
      assertThat(emitted.values()).as("the retry stages emitted each at most once").containsOnly(1);
      assertThat(
              countRows(
                  runtime,
                  "SELECT COUNT(*) FROM (SELECT instance_id FROM ax_instance_log"
                      + " WHERE from_status = 'RETRYING' AND to_status = 'DISPATCHED'"
                      + " GROUP BY instance_id HAVING COUNT(*) = 1) once"))
          .as("instances moved RETRYING -> DISPATCHED exactly once")
          .isEqualTo(PENDING);
    } finally {
      if (victim != null) {
        victim.destroyForcibly();
      }
    }
  }

  private static Set<String> union(
      List<ConsumerRecord<String, byte[]>> a, List<ConsumerRecord<String, byte[]>> b) {
    Set<String> ids = new HashSet<>();
    for (List<ConsumerRecord<String, byte[]>> records : List.of(a, b)) {
      for (ConsumerRecord<String, byte[]> record : records) {
        ids.add(AxJson.read(record.value(), TaskDueEvent.class).instanceId());
      }
    }
    return ids;
  }

  /** 1,000 instances whose first attempt failed, each due for its retry within 0.5-2.5 s. */
  private static void pendingRetries(TestRuntime runtime) {
    long nowMs = runtime.clock().millis();
    List<NewTask> tasks = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < PENDING; i++) {
      String taskId = "pending-" + i;
      tasks.add(new NewTask(TestTasks.onceNoop(taskId), "trace-" + i, nowMs));
      ids.add(InstanceIds.of(taskId, nowMs));
    }
    new TaskStore(runtime.dataSource()).create(tasks, "test", nowMs);
    runtime.markDispatchedAsLeader("ticker", ids, nowMs);
    InstanceStore instances = new InstanceStore(runtime.dataSource());
    ClaimStore claimStore = new ClaimStore(runtime.dataSource());
    OutcomeStore outcomeStore = new OutcomeStore(runtime.dataSource());
    List<ClaimedInstance> claimed = claimStore.claim(ids, "disp-1", nowMs + 60_000, nowMs);
    assertThat(claimed).hasSize(PENDING);
    List<Outcome> failures = new ArrayList<>();
    for (int i = 0; i < PENDING; i++) {
      ClaimedInstance c = claimed.get(i);
      failures.add(
          new Outcome(
              c.instanceId(),
              c.taskId(),
              c.attempt(),
              InstanceStatus.FAILED,
              "boom",
              nowMs,
              new AfterFailure.Retry(nowMs + 500 + (i * 2L), "retry 1 of 3")));
    }
    outcomeStore.recordOutcomes(failures, "disp-1", nowMs);
    assertThat(instances.countByStatus()).containsEntry(InstanceStatus.RETRYING, (long) PENDING);
  }

  private static long countRows(TestRuntime runtime, String sql) throws Exception {
    try (Connection connection = runtime.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getLong(1);
    }
  }
}
