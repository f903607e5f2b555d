package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TaskState;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A retry whose backoff ends after its task was stopped is not dispatched: the retry of a paused
 * task waits PAUSED and runs once the task is resumed; the retry of a task cancelled while its
 * attempt was running (and then failed) is CANCELLED, never run.
 */
@ExtendWith(AxInfraExtension.class)
class RetryOfStoppedTaskIT {

  private static final String RETRY_3S =
      ",\"retry\":{\"maxRetries\":3,\"backoffBaseMs\":3000,\"backoffMaxMs\":3000,\"jitter\":false}";

  @Test
  void aStoppedTasksRetryWaitsPausedOrIsCancelled(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env);
        RunningStages stages =
            RunningStages.on(runtime, "node-1").ingest().ticker().dispatcher().retry();
        KafkaProducer<String, byte[]> producer = UserClients.producer(runtime)) {
      runtime.awaitGroupsAssigned(1, "ingest", "dispatcher");
      Commands.send(producer, runtime, "paused-retry", failing(0));
      Commands.send(producer, runtime, "cancelled-retry", failing(2500));
      InstanceStore instances = new InstanceStore(runtime.dataSource());
      TaskStore tasks = new TaskStore(runtime.dataSource());

      // Paused while its retry waits out the backoff: the retry waits PAUSED, attempt 1 only.
      Commands.awaitFirstInstance(
          runtime, "paused-retry", r -> r.status() == InstanceStatus.RETRYING);
      Commands.sendJson(
          producer, runtime, "paused-retry", Commands.lifecycle("PAUSE", "paused-retry", "p"));
      // Cancelled while its first attempt runs; the attempt fails afterwards.
      Commands.awaitFirstInstance(
          runtime, "cancelled-retry", r -> r.status() == InstanceStatus.RUNNING);
      Commands.sendJson(
          producer,
          runtime,
          "cancelled-retry",
          Commands.lifecycle("CANCEL", "cancelled-retry", "c"));

      InstanceRow paused =
          Commands.awaitFirstInstance(
              runtime, "paused-retry", r -> r.status() == InstanceStatus.PAUSED);
      assertThat(paused.attempt()).isEqualTo(1);
      InstanceRow cancelled =
          Commands.awaitFirstInstance(
              runtime, "cancelled-retry", r -> r.status() == InstanceStatus.CANCELLED);
      assertThat(cancelled.attempt()).as("its retry never ran").isEqualTo(1);
      assertThat(tasks.find("cancelled-retry").orElseThrow().state())
          .isEqualTo(TaskState.CANCELLED);
      await()
          .during(Duration.ofSeconds(4))
          .atMost(Duration.ofSeconds(6))
          .until(() -> first(instances, "paused-retry").status() == InstanceStatus.PAUSED);

      Commands.sendJson(
          producer, runtime, "paused-retry", Commands.lifecycle("RESUME", "paused-retry", "r"));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> first(instances, "paused-retry").attempt() >= 2);
      assertThat(first(instances, "cancelled-retry").status()).isEqualTo(InstanceStatus.CANCELLED);
    }
  }

  /** A one-shot task due now whose attempt sleeps {@code sleepMs}, then fails; 3 s backoff. */
  private static String failing(long sleepMs) {
    return "\"trigger\":{\"type\":\"ONCE\",\"delayMs\":0},"
        + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"sleep\"},"
        + "\"params\":{\"sleepMs\":\""
        + sleepMs
        + "\",\"fail\":\"true\"}"
        + RETRY_3S;
  }

  private static InstanceRow first(InstanceStore instances, String taskId) {
    return instances.findByTask(taskId).get(0);
  }
}
