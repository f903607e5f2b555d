package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.cli.command.ExitCodes;
import dev.ax.common.model.DeadLetterState;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TaskState;
import dev.ax.common.store.AuditLog;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.deadletter.DeadLetterStore;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code ax dlq replay} passes the task's gate (DESIGN invariant 11): a dead letter whose task was
 * cancelled or deleted after it died is refused with the reason and stays OPEN, unless {@code
 * --force}; one whose task is paused is replayed into PAUSED and runs only once the task is
 * resumed. (The cancelled and deleted tasks are one-shot tasks ENDED when their run died: CANCEL
 * and DELETE apply to them as to any finished task; the paused one is paused while its run is on.)
 * The tasks die, are stopped and are replayed through the whole pipeline and the CLI, as an
 * operator would.
 */
@ExtendWith(AxInfraExtension.class)
class DlqReplayOfStoppedTaskIT {

  /** A one-shot task due now whose only attempt fails (no retries): it dies at once. */
  private static final String DIES_AT_ONCE =
      "\"trigger\":{\"type\":\"ONCE\",\"delayMs\":0},"
          + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"sleep\"},"
          + "\"params\":{\"sleepMs\":\"0\",\"fail\":\"true\"},"
          + "\"retry\":{\"maxRetries\":0}";

  /**
   * As {@link #DIES_AT_ONCE}, its attempt failing after 2 s: time to pause the task while it runs
   * (a one-shot task whose run is over is ENDED, and a PAUSE of it is refused).
   */
  private static final String DIES_AFTER_A_WHILE = DIES_AT_ONCE.replace("\"0\"", "\"2000\"");

  @Test
  void aStoppedTasksDeadLetterIsRefusedUnlessForcedAndAPausedOneWaitsForResume(AxTestEnv env)
      throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env);
        RunningStages stages =
            RunningStages.on(runtime, "node-1").ingest().ticker().dispatcher().deadLetter();
        KafkaProducer<String, byte[]> producer = UserClients.producer(runtime);
        CliRun.Target cli = CliRun.pointAt(env, runtime)) {
      runtime.awaitGroupsAssigned(1, "ingest", "dispatcher", "deadletter");
      Commands.send(producer, runtime, "dies-cancelled", DIES_AT_ONCE);
      Commands.send(producer, runtime, "dies-paused", DIES_AFTER_A_WHILE);
      Commands.awaitFirstInstance(
          runtime, "dies-paused", row -> row.status() == InstanceStatus.RUNNING);
      Commands.sendJson(
          producer, runtime, "dies-paused", Commands.lifecycle("PAUSE", "dies-paused", "p"));
      Commands.send(producer, runtime, "dies-deleted", DIES_AT_ONCE);
      DeadLetterStore letters = new DeadLetterStore(runtime.dataSource());
      long cancelledLetter =
          DeadLetters.awaitNewest(letters, "dies-cancelled", Duration.ofSeconds(60)).id();
      long pausedLetter =
          DeadLetters.awaitNewest(letters, "dies-paused", Duration.ofSeconds(60)).id();
      long deletedLetter =
          DeadLetters.awaitNewest(letters, "dies-deleted", Duration.ofSeconds(60)).id();
      Commands.sendJson(
          producer, runtime, "dies-cancelled", Commands.lifecycle("CANCEL", "dies-cancelled", "c"));
      Commands.sendJson(
          producer, runtime, "dies-deleted", Commands.lifecycle("DELETE", "dies-deleted", "d"));
      TaskStore tasks = new TaskStore(runtime.dataSource());
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  tasks.find("dies-cancelled").orElseThrow().state() == TaskState.CANCELLED
                      && tasks.find("dies-paused").orElseThrow().state() == TaskState.PAUSED
                      && tasks.find("dies-deleted").orElseThrow().state() == TaskState.DELETED);
      InstanceStore instances = new InstanceStore(runtime.dataSource());

      // Cancelled or deleted: refused with the reason, nothing moves.
      CliRun refused =
          CliRun.ax("dlq", "replay", Long.toString(cancelledLetter), Long.toString(deletedLetter));
      assertThat(refused.exitCode()).as(refused.out() + refused.err()).isEqualTo(ExitCodes.FAILED);
      assertThat(refused.out())
          .contains("dead letter " + cancelledLetter + ": refused: its task is CANCELLED")
          .contains("dead letter " + deletedLetter + ": refused: its task is DELETED")
          .contains("--force")
          .contains("0 replayed, 2 not");
      for (long letter : List.of(cancelledLetter, deletedLetter)) {
        assertThat(letters.find(letter).orElseThrow().state()).isEqualTo(DeadLetterState.OPEN);
      }
      assertThat(first(instances, "dies-cancelled").status()).isEqualTo(InstanceStatus.DEAD);
      assertThat(first(instances, "dies-deleted").status()).isEqualTo(InstanceStatus.DEAD);

      // Paused: replayed into PAUSED; it runs (and dies again) only after the RESUME.
      CliRun held = CliRun.ax("dlq", "replay", Long.toString(pausedLetter));
      assertThat(held.exitCode()).as(held.out() + held.err()).isZero();
      assertThat(held.out()).contains("replayed; its task is PAUSED");
      assertThat(letters.find(pausedLetter).orElseThrow().state())
          .isEqualTo(DeadLetterState.REPLAYED);
      InstanceRow paused = first(instances, "dies-paused");
      assertThat(paused.status()).isEqualTo(InstanceStatus.PAUSED);
      assertThat(paused.attempt()).as("not run again while paused").isEqualTo(1);
      Commands.sendJson(
          producer, runtime, "dies-paused", Commands.lifecycle("RESUME", "dies-paused", "r"));
      InstanceRow ranAgain =
          Commands.awaitFirstInstance(
              runtime,
              "dies-paused",
              row -> row.status() == InstanceStatus.DEAD && row.attempt() == 2);
      assertThat(ranAgain.attempt()).isEqualTo(2);

      // Forced: the cancelled task's letter is replayed and its instance runs once more.
      CliRun forced = CliRun.ax("dlq", "replay", Long.toString(cancelledLetter), "--force");
      assertThat(forced.exitCode()).as(forced.out() + forced.err()).isZero();
      assertThat(forced.out()).contains("dead letter " + cancelledLetter + ": replayed");
      InstanceRow forcedRun =
          Commands.awaitFirstInstance(runtime, "dies-cancelled", row -> row.attempt() == 2);
      assertThat(new AuditLog(runtime.dataSource()).history(forcedRun.instanceId()))
          .filteredOn(t -> t.from() == InstanceStatus.DEAD)
          .extracting(AuditLog.Transition::reason)
          .singleElement(InstanceOfAssertFactories.STRING)
          .contains("forced although its task is CANCELLED");
    }
  }

  private static InstanceRow first(InstanceStore instances, String taskId) {
    return instances.findByTask(taskId).get(0);
  }
}
