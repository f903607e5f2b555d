package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.testing.StatusPath;
import dev.ax.common.testing.TestRuntime;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A run longer than the claim lease is kept alive by renewal: the reaper never takes it back. */
@ExtendWith(AxInfraExtension.class)
class LongRunIT {

  @Test
  void aRunLongerThanItsLeaseIsRenewedAndRunsOnce(AxTestEnv env) throws Exception {
    Map<String, String> config = Map.of("AX_DISPATCHER_LEASE", "5s", "AX_REAPER_INTERVAL", "200ms");
    try (TestRuntime runtime = TestRuntime.open(env, config);
        RunningStages stages = RunningStages.on(runtime, "node-1").ingest().ticker().dispatcher();
        KafkaProducer<String, byte[]> producer = UserClients.producer(runtime)) {
      runtime.awaitGroupsAssigned(1, "ingest", "dispatcher");
      String json =
          "{\"v\":1,\"taskId\":\"long\",\"trigger\":{\"type\":\"ONCE\",\"delayMs\":0},"
              + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"sleep\"},\"params\":{\"sleepMs\":9000},"
              + "\"timeoutMs\":30000}";
      Commands.sendJson(producer, runtime, "long", json);
      InstanceRow row =
          Commands.awaitFirstInstance(runtime, "long", first -> first.status().isTerminal());
      assertThat(row.status()).isEqualTo(InstanceStatus.SUCCESS);
      assertThat(row.attempt()).as("never taken back and run again").isEqualTo(1);
      assertThat(StatusPath.of(runtime.dataSource(), row.instanceId()))
          .containsExactlyElementsOf(StatusPath.RAN_ONCE_AND_SUCCEEDED);
    }
  }
}
