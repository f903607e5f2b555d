package dev.ax.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.model.ConcurrencyPolicy;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.MisfirePolicy;
import dev.ax.common.model.Trigger;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.NewInstance;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.RawSql;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TestTasks;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * RESUME of a periodic task that holds two firings (one fired just before the PAUSE, and the
 * successor the ticker created with it): one late firing stands for every missed one, so only the
 * earliest is resumed and the later one SKIPPED with its audit row, unless the policy is FIRE_ALL;
 * an extra RUN_NOW instance resumes whatever the policy.
 */
@ExtendWith(AxInfraExtension.class)
class ResumeHeldFiringsIT {

  /** A minute ago, on the second: both held firings are due already when the RESUME comes. */
  private static long pastSlot(TestRuntime runtime) {
    return (runtime.clock().millis() / 1_000 - 60) * 1_000;
  }

  @ParameterizedTest
  @EnumSource(MisfirePolicy.class)
  void resumesOneHeldFiringUnlessEveryMissedOneRuns(MisfirePolicy policy, AxTestEnv env)
      throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      String taskId = "rate-" + policy.name().toLowerCase(java.util.Locale.ROOT);
      Held held = holdTwoFirings(runtime, taskId, policy, 0, pastSlot(runtime), 1_000);
      List<String> announced = resume(runtime, taskId);
      assertThat(status(held.instances, held.first)).isEqualTo(InstanceStatus.SCHEDULED);
      assertThat(status(held.instances, held.extra))
          .as("no slot: resumes")
          .isEqualTo(InstanceStatus.SCHEDULED);
      if (policy == MisfirePolicy.FIRE_ALL) {
        assertThat(status(held.instances, held.second)).isEqualTo(InstanceStatus.SCHEDULED);
        assertThat(announced).containsExactlyInAnyOrder(held.first, held.second, held.extra);
      } else {
        assertThat(status(held.instances, held.second))
            .as("the earlier held firing stands for it")
            .isEqualTo(InstanceStatus.SKIPPED);
        assertThat(announced).containsExactlyInAnyOrder(held.first, held.extra);
        // On the record: its completion event waits in the outbox, reason "paused".
        TaskCompletedEvent event = outboxEvent(runtime, held.second);
        assertThat(event.status()).isEqualTo(InstanceStatus.SKIPPED);
        assertThat(event.error()).startsWith("paused: ").contains(held.first);
      }
    }
  }

  /**
   * The earlier slot is a held run (its attempt failed, its retry was held by the PAUSE): it
   * extended the chain when it first fired and its retry extends nothing, so it cannot stand for
   * the chain's head, which must resume too (found by LifecycleModelIT, seed -8634853454757268509,
   * where skipping the head ended the chain).
   */
  @ParameterizedTest
  @EnumSource(MisfirePolicy.class)
  void aHeldRetryNeverStandsForTheChainsHead(MisfirePolicy policy, AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      String taskId = "retry-" + policy.name().toLowerCase(java.util.Locale.ROOT);
      Held held = holdTwoFirings(runtime, taskId, policy, 1, pastSlot(runtime), 1_000);
      List<String> announced = resume(runtime, taskId);
      assertThat(status(held.instances, held.second))
          .as("the chain's head resumes")
          .isEqualTo(InstanceStatus.SCHEDULED);
      assertThat(status(held.instances, held.first))
          .as("the held retry resumes as itself")
          .isEqualTo(InstanceStatus.SCHEDULED);
      assertThat(announced).containsExactlyInAnyOrder(held.first, held.second, held.extra);
    }
  }

  /**
   * The later held firing is still ahead at the RESUME (a short pause): it is the chain's next
   * firing, which the earlier one's catch-up plans as its successor under the same id, so it
   * resumes; skipping it would end the chain.
   */
  @ParameterizedTest
  @EnumSource(MisfirePolicy.class)
  void aHeldFiringStillAheadResumesAsTheChainsNext(MisfirePolicy policy, AxTestEnv env)
      throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      String taskId = "ahead-" + policy.name().toLowerCase(java.util.Locale.ROOT);
      // Every minute: the first held firing is 5 s past, the second 55 s ahead.
      long slot1Ms = runtime.clock().millis() - 5_000;
      Held held = holdTwoFirings(runtime, taskId, policy, 0, slot1Ms, 60_000);
      List<String> announced = resume(runtime, taskId);
      assertThat(status(held.instances, held.second))
          .as("the chain's next firing, still ahead, resumes")
          .isEqualTo(InstanceStatus.SCHEDULED);
      assertThat(announced).contains(held.first, held.second);
    }
  }

  private record Held(InstanceStore instances, String first, String second, String extra) {}

  /**
   * A FIXED_RATE task, PAUSED, holding its first slot (with {@code firstAttempts} attempts made),
   * the successor slot and a RUN_NOW instance.
   */
  private static Held holdTwoFirings(
      TestRuntime runtime,
      String taskId,
      MisfirePolicy policy,
      int firstAttempts,
      long slot1Ms,
      long intervalMs)
      throws Exception {
    long slot2Ms = slot1Ms + intervalMs;
    long nowMs = runtime.clock().millis();
    new TaskStore(runtime.dataSource())
        .create(
            List.of(
                new NewTask(
                    TestTasks.noop(
                        taskId,
                        new Trigger.FixedRate(
                            Duration.ofMillis(intervalMs), Instant.ofEpochMilli(slot1Ms)),
                        policy,
                        MisfirePolicy.DEFAULT_MAX_FIRE_ALL,
                        true,
                        ConcurrencyPolicy.DEFAULT),
                    "trace",
                    slot1Ms)),
            "test",
            nowMs);
    InstanceStore instances = new InstanceStore(runtime.dataSource());
    String first = InstanceIds.of(taskId, slot1Ms);
    String second = InstanceIds.of(taskId, slot2Ms);
    String extra = taskId + "@run:op-1";
    instances.create(
        List.of(
            new NewInstance(second, taskId, 1, slot2Ms, "trace", "next firing", null, false),
            new NewInstance(extra, taskId, 1, slot1Ms, "trace", "run now", null, false)),
        "test",
        nowMs);
    RawSql.execute(
        runtime.dataSource(),
        "UPDATE ax_instance SET status = 'PAUSED' WHERE task_id = '" + taskId + "'");
    RawSql.execute(
        runtime.dataSource(),
        "UPDATE ax_instance SET attempt = "
            + firstAttempts
            + " WHERE instance_id = '"
            + first
            + "'");
    RawSql.execute(
        runtime.dataSource(),
        "UPDATE ax_task SET state = 'PAUSED' WHERE task_id = '" + taskId + "'");
    return new Held(instances, first, second, extra);
  }

  /** The completion event in the outbox for {@code instanceId}. */
  private static TaskCompletedEvent outboxEvent(TestRuntime runtime, String instanceId)
      throws Exception {
    try (Connection connection = runtime.dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("SELECT payload FROM ax_outbox")) {
      while (rs.next()) {
        TaskCompletedEvent event = AxJson.read(rs.getBytes(1), TaskCompletedEvent.class);
        if (event.instanceId().equals(instanceId)) {
          return event;
        }
      }
    }
    throw new AssertionError("no completion event in the outbox for " + instanceId);
  }

  private static List<String> resume(TestRuntime runtime, String taskId) throws Exception {
    TaskLifecycleStore.Result result =
        new TaskLifecycleStore(runtime.dataSource())
            .apply(
                TaskLifecycleStore.Transition.RESUME,
                new TaskLifecycleStore.Request(
                    "r-1",
                    taskId,
                    null,
                    "resume",
                    "trace",
                    "test",
                    runtime.clock().millis(),
                    false));
    assertThat(result).isInstanceOf(TaskLifecycleStore.Result.Applied.class);
    return ((TaskLifecycleStore.Result.Applied) result)
        .toAnnounce().stream().map(d -> d.instanceId()).toList();
  }

  private static InstanceStatus status(InstanceStore instances, String instanceId) {
    return instances.find(instanceId).map(InstanceRow::status).orElseThrow();
  }
}
