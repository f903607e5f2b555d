package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.cli.command.ExitCodes;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.Jdbc;
import dev.ax.common.testing.TestRuntime;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code ax task cancel --interrupt}: a task's hung attempt (it would sleep ten minutes) is
 * CANCELLED with an audit row that says so, its dispatcher interrupts it at the next lease renewal,
 * which frees the pool's only thread for the next task of the group, and no outcome of the
 * interrupted attempt is ever recorded over the cancellation.
 */
@ExtendWith(AxInfraExtension.class)
class TaskInterruptIT {

  @Test
  void aCancelWithInterruptStopsTheRunningAttempt(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env);
        CliRun.Target cli = CliRun.pointAt(env, runtime)) {
      try (RunningStages stages =
              RunningStages.on(runtime, "node-1")
                  .ingest()
                  .ticker()
                  .dispatcher(
                      Map.of(
                          "AX_DISPATCHER_GROUP_THREADS", "slow=1", "AX_DISPATCHER_LEASE", "5s"));
          KafkaProducer<String, byte[]> producer = UserClients.producer(runtime)) {
        runtime.awaitGroupsAssigned(1, "ingest", "dispatcher");
        Commands.sendJson(producer, runtime, "hung", sleeping("hung", 600_000));
        Commands.awaitFirstInstance(runtime, "hung", r -> r.status() == InstanceStatus.RUNNING);

        CliRun cancel = CliRun.ax("task", "cancel", "hung", "--interrupt", "--reason", "it hangs");
        assertThat(cancel.exitCode()).as(cancel.err()).isZero();
        InstanceRow cancelled =
            Commands.awaitFirstInstance(
                runtime, "hung", r -> r.status() == InstanceStatus.CANCELLED);
        assertThat(cancelled.attempt()).isEqualTo(1);
        assertThat(cancelled.lastError()).contains("it hangs");
        assertThat(
                new Jdbc(runtime.dataSource())
                    .queryLong(
                        "counting the interrupt's audit row",
                        "SELECT COUNT(*) FROM ax_instance_log WHERE task_id = 'hung'"
                            + " AND from_status = 'RUNNING' AND to_status = 'CANCELLED'"
                            + " AND reason LIKE '%its running attempt is interrupted%'",
                        Jdbc.Binder.values()))
            .isEqualTo(1);

        // The group's one worker thread is free again only if the hung attempt was interrupted.
        Commands.sendJson(producer, runtime, "next", sleeping("next", 0));
        Commands.awaitFirstInstance(runtime, "next", r -> r.status() == InstanceStatus.SUCCESS);
        InstanceStore instances = new InstanceStore(runtime.dataSource());
        assertThat(instances.findByTask("hung"))
            .singleElement()
            .extracting(InstanceRow::status)
            .as("the interrupted attempt's outcome is not recorded over it")
            .isEqualTo(InstanceStatus.CANCELLED);

        CliRun again = CliRun.ax("task", "cancel", "hung", "--interrupt");
        assertThat(again.exitCode()).isZero(); // sent; applying it again interrupts nothing more
        CliRun pause = CliRun.ax("task", "pause", "hung", "--interrupt");
        assertThat(pause.exitCode())
            .as("pause takes no --interrupt")
            .isEqualTo(ExitCodes.BAD_CONFIG);
      }
    }
  }

  /** A one-shot task of group slow, due now, sleeping {@code sleepMs}, with a long timeout. */
  private static String sleeping(String taskId, long sleepMs) {
    return "{\"v\":1,\"taskId\":\""
        + taskId
        + "\",\"group\":\"slow\",\"trigger\":{\"type\":\"ONCE\",\"delayMs\":0},"
        + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"sleep\"},"
        + "\"params\":{\"sleepMs\":\""
        + sleepMs
        + "\"},\"timeoutMs\":900000}";
  }
}
