package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.AuditLog;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.Jdbc;
import dev.ax.common.testing.TcpProxy;
import dev.ax.common.testing.TestRuntime;
import dev.ax.dispatcher.DispatcherMain;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.ticker.TickerMain;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The database away for longer than the run lease while a long run is in flight, with the ticker
 * and the dispatcher in processes of their own that reach the database through a relay the test
 * cuts: the run's lease expires while nobody can renew it, and once the database answers again the
 * dispatcher renews it before the reaper may take it back. The run executes exactly once.
 */
@ExtendWith(AxInfraExtension.class)
class LeaseOutageIT {

  private static final Map<String, String> CONFIG =
      Map.of(
          "AX_DISPATCHER_LEASE", "6s",
          "AX_REAPER_INTERVAL", "200ms",
          "AX_REAPER_UNCLAIMED_AFTER", "5s");

  @Test
  void aRunWhoseLeaseExpiredWhileTheDatabaseWasAwayRunsOnce(AxTestEnv env) throws Exception {
    List<Process> processes = new java.util.ArrayList<>();
    try (TestRuntime runtime = TestRuntime.open(env, CONFIG);
        RunningStages intake = RunningStages.on(runtime, "intake").ingest();
        TcpProxy relay = TcpProxy.inFrontOf(env.database());
        KafkaProducer<String, byte[]> producer = UserClients.producer(runtime)) {
      Map<String, String> throughRelay = new HashMap<>(CONFIG);
      throughRelay.put("AX_JDBC_URL", relay.jdbcUrl(env.database()));
      processes.add(StageProcess.start(env, TickerMain.class, "ticker-p", throughRelay));
      processes.add(StageProcess.start(env, DispatcherMain.class, "dispatcher-p", throughRelay));
      runtime.awaitGroupsAssigned(1, "ingest", "dispatcher");

      Commands.sendJson(
          producer,
          runtime,
          "long-run",
          "{\"v\":1,\"taskId\":\"long-run\",\"trigger\":{\"type\":\"ONCE\",\"delayMs\":0},"
              + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"sleep\"},"
              + "\"params\":{\"sleepMs\":\"20000\"},\"timeoutMs\":60000}");
      InstanceRow running =
          Commands.awaitFirstInstance(
              runtime, "long-run", row -> row.status() == InstanceStatus.RUNNING);

      relay.cut();
      Jdbc direct = new Jdbc(runtime.dataSource());
      // Away until the run's lease has been expired for two seconds: longer than the lease.
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  direct.queryLong(
                          "lease",
                          "SELECT COALESCE(MAX(lease_until_ms), 0) FROM ax_instance"
                              + " WHERE instance_id = ?",
                          Jdbc.Binder.values(running.instanceId()))
                      < runtime.clock().millis() - 2_000);
      relay.restore();

      InstanceRow done =
          Commands.awaitFirstInstance(runtime, "long-run", row -> row.status().isTerminal());
      assertThat(done.status()).isEqualTo(InstanceStatus.SUCCESS);
      assertThat(done.attempt()).as("one attempt").isEqualTo(1);
      assertThat(new AuditLog(runtime.dataSource()).history(running.instanceId()))
          .as("started once, never taken back")
          .filteredOn(t -> t.to() == InstanceStatus.RUNNING)
          .hasSize(1);
      assertThat(new InstanceStore(runtime.dataSource()).findByTask("long-run")).hasSize(1);
    } finally {
      processes.forEach(Process::destroyForcibly);
    }
  }
}
