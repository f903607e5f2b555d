package dev.ax.ticker.fire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.kafka.EventDecoder;
import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.RetryPolicy;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.model.TriggerType;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TestTasks;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The FIXED_DELAY chainer against a real database: the task's state is read under its lock in the
 * transaction that creates the next firing, so a lifecycle command that commits while the chainer
 * works is never overtaken. Each command here follows the lifecycle commands' protocol (the task's
 * row locked exclusively and its state changed, then the task's instance rows locked) and stays
 * open until the chainer is seen waiting for it or has finished: the chainer used to read the state
 * without a lock before it inserted, and chained a task cancelled or paused meanwhile.
 */
@ExtendWith(AxInfraExtension.class)
class FixedDelayChainerIT {

  private static final Duration INTERVAL = Duration.ofMinutes(1);

  @Test
  void aCancelCommittedWhileTheChainerWorksEndsTheChain(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env);
        KafkaProducer<String, byte[]> producer = KafkaClients.producer(runtime.kafka(), "test")) {
      long endedMs = runtime.clock().millis();
      String run = endedRun(runtime, "fd-cancelled", endedMs);

      chainWhileCommandIsOpen(
          runtime,
          producer,
          "fd-cancelled",
          "CANCELLED",
          List.of(completed("fd-cancelled", run, endedMs)));

      assertThat(new InstanceStore(runtime.dataSource()).findByTask("fd-cancelled"))
          .as("no next firing of a cancelled task")
          .extracting(InstanceRow::instanceId)
          .containsExactly(run);
    }
  }

  @Test
  void aPausedTasksNextFiringIsCreatedPausedAnActiveOnesScheduled(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env);
        KafkaProducer<String, byte[]> producer = KafkaClients.producer(runtime.kafka(), "test")) {
      long endedMs = runtime.clock().millis();
      String pausedRun = endedRun(runtime, "fd-paused", endedMs);
      String activeRun = endedRun(runtime, "fd-active", endedMs);

      chainWhileCommandIsOpen(
          runtime,
          producer,
          "fd-paused",
          "PAUSED",
          List.of(
              completed("fd-paused", pausedRun, endedMs),
              completed("fd-active", activeRun, endedMs)));

      InstanceStore instances = new InstanceStore(runtime.dataSource());
      long nextMs = endedMs + INTERVAL.toMillis();
      assertThat(instances.find(InstanceIds.of("fd-paused", nextMs)))
          .as("next firing of the paused task")
          .get()
          .extracting(InstanceRow::status)
          .isEqualTo(InstanceStatus.PAUSED);
      assertThat(instances.find(InstanceIds.of("fd-active", nextMs)))
          .as("next firing of the active task")
          .get()
          .extracting(InstanceRow::status)
          .isEqualTo(InstanceStatus.SCHEDULED);
    }
  }

  @Test
  void theEndOfARunNowRunIsNoLinkOfTheChain(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env);
        KafkaProducer<String, byte[]> producer = KafkaClients.producer(runtime.kafka(), "test")) {
      long endedMs = runtime.clock().millis();
      String chainRun = endedRun(runtime, "fd-run-now", endedMs - 5_000);
      // The chain's own run is still going; RUN_NOW's extra run ends first.
      new Jdbc(runtime.dataSource())
          .inTransaction(
              "the chain's run goes on",
              tx ->
                  tx.update(
                      "UPDATE ax_instance SET status = 'RUNNING' WHERE instance_id = ?",
                      Jdbc.Binder.values(chainRun)));
      FixedDelayChainer chainer = chainer(runtime, producer);

      chainer.handle(
          records(runtime, List.of(completed("fd-run-now", "fd-run-now@run:op-1", endedMs))));

      assertThat(new InstanceStore(runtime.dataSource()).findByTask("fd-run-now"))
          .as("RUN_NOW's run ended: the chain waits for its own run")
          .extracting(InstanceRow::instanceId)
          .containsExactly(chainRun);
    }
  }

  @Test
  void aRunNowRunWaitingToFireDoesNotEndTheChain(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env);
        KafkaProducer<String, byte[]> producer = KafkaClients.producer(runtime.kafka(), "test")) {
      long endedMs = runtime.clock().millis();
      String chainRun = endedRun(runtime, "fd-run-now-waits", endedMs);
      // A RUN_NOW committed after the chain's run ended, before its completion event was read:
      // its extra run is SCHEDULED, and it extends nothing when it ends, so the chain must go on.
      String extraRun = "fd-run-now-waits@run:op-2";
      new Jdbc(runtime.dataSource())
          .inTransaction(
              "RUN_NOW's extra run waits to fire",
              tx ->
                  tx.update(
                      "INSERT INTO ax_instance (instance_id, task_id, task_version, due_at_ms,"
                          + " status, attempt, trace_id, created_at_ms, updated_at_ms)"
                          + " SELECT ?, task_id, task_version, ?, 'SCHEDULED', 0, trace_id, ?, ?"
                          + " FROM ax_instance WHERE instance_id = ?",
                      Jdbc.Binder.values(extraRun, endedMs, endedMs, endedMs, chainRun)));

      chainer(runtime, producer)
          .handle(records(runtime, List.of(completed("fd-run-now-waits", chainRun, endedMs))));

      assertThat(
              new InstanceStore(runtime.dataSource())
                  .find(InstanceIds.of("fd-run-now-waits", endedMs + INTERVAL.toMillis())))
          .as("the chain's next firing, beside RUN_NOW's waiting run")
          .get()
          .extracting(InstanceRow::status)
          .isEqualTo(InstanceStatus.SCHEDULED);
    }
  }

  /**
   * Opens a lifecycle command on {@code taskId} that moves it to {@code state}, hands {@code
   * events} to a chainer on another thread, and commits the command once the chainer waits for a
   * lock or is done; then waits for the chainer.
   */
  private static void chainWhileCommandIsOpen(
      TestRuntime runtime,
      KafkaProducer<String, byte[]> producer,
      String taskId,
      String state,
      List<TaskCompletedEvent> events)
      throws Exception {
    FixedDelayChainer chainer = chainer(runtime, producer);
    ExecutorService chainThread = Executors.newSingleThreadExecutor();
    try (Connection command = runtime.dataSource().getConnection()) {
      command.setAutoCommit(false);
      run(command, "SELECT state FROM ax_task WHERE task_id = ? FOR UPDATE", taskId);
      run(command, "UPDATE ax_task SET state = '" + state + "' WHERE task_id = ?", taskId);
      run(command, "SELECT status FROM ax_instance WHERE task_id = ? FOR UPDATE", taskId);

      Future<?> chaining =
          chainThread.submit(
              () -> {
                chainer.handle(records(runtime, events));
                return null;
              });
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> lockWaits(runtime) >= 1 || chaining.isDone());
      command.commit();

      chaining.get(30, TimeUnit.SECONDS);
    } finally {
      chainThread.shutdownNow();
    }
  }

  /** A FIXED_DELAY task whose first run ended (SUCCESS) at {@code endedMs}; returns its id. */
  private static String endedRun(TestRuntime runtime, String taskId, long endedMs) {
    TaskSpec spec =
        TestTasks.spec(
            taskId,
            "default",
            new Trigger.FixedDelay(INTERVAL, null),
            ExecutorSpec.inProcess("noop"),
            Duration.ofSeconds(5),
            RetryPolicy.DEFAULT,
            Map.of());
    long dueAtMs = endedMs - 1_000;
    new TaskStore(runtime.dataSource())
        .create(List.of(new NewTask(spec, "tr", dueAtMs)), "test", dueAtMs);
    String id = InstanceIds.of(taskId, dueAtMs);
    new Jdbc(runtime.dataSource())
        .inTransaction(
            "end the run of " + id,
            tx ->
                tx.update(
                    "UPDATE ax_instance SET status = 'SUCCESS', attempt = 1 WHERE instance_id = ?",
                    Jdbc.Binder.values(id)));
    return id;
  }

  private static TaskCompletedEvent completed(String taskId, String instanceId, long endedMs) {
    return new TaskCompletedEvent(
        AxJson.VERSION,
        taskId,
        instanceId,
        1,
        InstanceStatus.SUCCESS,
        endedMs,
        endedMs,
        endedMs,
        endedMs,
        0,
        0,
        "tr",
        null,
        "disp",
        InstanceStatus.SUCCESS,
        null,
        TriggerType.FIXED_DELAY,
        null);
  }

  private static ConsumerRecords<String, byte[]> records(
      TestRuntime runtime, List<TaskCompletedEvent> events) {
    TopicPartition partition = new TopicPartition(runtime.topics().completed(), 0);
    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
    for (TaskCompletedEvent event : events) {
      records.add(
          new ConsumerRecord<>(
              partition.topic(), 0, records.size(), event.taskId(), AxJson.write(event)));
    }
    return new ConsumerRecords<>(
        Map.of(partition, records), Map.of(partition, new OffsetAndMetadata(records.size())));
  }

  /** Transactions of this server waiting for a lock now. */
  private static long lockWaits(TestRuntime runtime) {
    return new Jdbc(runtime.dataSource())
        .queryLong(
            "counting lock waits",
            "SELECT COUNT(*) FROM information_schema.innodb_trx WHERE trx_state = 'LOCK WAIT'",
            Jdbc.Binder.values());
  }

  private static void run(Connection connection, String sql, String taskId) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, taskId);
      statement.execute();
    }
  }

  /** The chainer as node {@code ticker-1} would have it. */
  private static FixedDelayChainer chainer(
      TestRuntime runtime, KafkaProducer<String, byte[]> producer) {
    return new FixedDelayChainer(
        EventDecoder.of(
            TaskCompletedEvent.class, "completion event", "ticker", new SimpleMeterRegistry()),
        new TaskStore(runtime.dataSource()),
        new FiringStore(runtime.dataSource()),
        producer,
        runtime.topics().scheduled(),
        "ticker-1",
        runtime.clock(),
        runtime.topics()::namespaceOfCompleted);
  }
}
