package dev.ax.systemtest;

import static dev.ax.systemtest.TaskBody.inGroup;
import static dev.ax.systemtest.TaskBody.noop;
import static dev.ax.systemtest.TaskBody.once;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.stage.Switches;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.SwitchStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The {@code dispatch.<group>} switch: while it is off, the group's due instances wait DISPATCHED
 * and nothing of them runs, while another group's run as usual; once it is on, every held one runs,
 * once.
 */
@ExtendWith(AxInfraExtension.class)
class DispatchSwitchIT {

  private static final int PER_GROUP = 20;

  @Test
  void dispatchOffForOneGroupHoldsItsInstancesWhileAnotherGroupRuns(AxTestEnv env)
      throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      SwitchStore switches = new SwitchStore(runtime.dataSource());
      switches.set(Switches.DISPATCH + ".held", "off", "test", runtime.clock().millis());
      // The reaper re-emits what the dispatcher leaves DISPATCHED: soon, so that the test sees
      // the held instances come back once the switch is on.
      Map<String, String> fastReaper =
          Map.of("AX_REAPER_UNCLAIMED_AFTER", "2s", "AX_REAPER_INTERVAL", "500ms");
      try (RunningStages stages =
              RunningStages.on(runtime, "node-1").ingest().ticker(fastReaper).dispatcher();
          KafkaProducer<String, byte[]> producer = UserClients.producer(runtime)) {
        runtime.awaitGroupsAssigned(1, "ingest", "dispatcher");
        for (int i = 0; i < PER_GROUP; i++) {
          for (String group : List.of("held", "free")) {
            Commands.send(producer, runtime, group + "-" + i, inGroup(group, noop(once(0))));
          }
        }
        InstanceStore instances = new InstanceStore(runtime.dataSource());
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> count(instances, "free-", InstanceStatus.SUCCESS) == PER_GROUP);
        // The other group ran; this one waits DISPATCHED, and the reaper (which applies the
        // switch too) leaves it be: not one re-emit (each would be an event and an audit row).
        await()
            .during(Duration.ofSeconds(5))
            .atMost(Duration.ofSeconds(8))
            .until(() -> count(instances, "held-", InstanceStatus.DISPATCHED) == PER_GROUP);
        assertThat(reemits(runtime, "held-%")).as("held instances re-emitted").isZero();
        assertThat(switches.applied())
            .extracting(SwitchStore.Applied::stage)
            .contains("ax-dispatcher@node-1", "ax-ticker@node-1");

        switches.set(Switches.DISPATCH + ".held", "on", "test", runtime.clock().millis());
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> count(instances, "held-", InstanceStatus.SUCCESS) == PER_GROUP);
        for (int i = 0; i < PER_GROUP; i++) {
          InstanceRow row = instances.findByTask("held-" + i).get(0);
          assertThat(row.attempt()).as("held-%d ran once", i).isEqualTo(1);
        }
      }
    }
  }

  /** Audit rows of the reaper's re-emits of unclaimed instances of tasks {@code like}. */
  private static long reemits(TestRuntime runtime, String like) {
    return new Jdbc(runtime.dataSource())
        .queryLong(
            "counting re-emits",
            "SELECT COUNT(*) FROM ax_instance_log WHERE task_id LIKE ? AND reason = ?",
            Jdbc.Binder.values(like, "not claimed in time: emitted again"));
  }

  private static long count(InstanceStore instances, String prefix, InstanceStatus status) {
    long n = 0;
    for (int i = 0; i < PER_GROUP; i++) {
      n += instances.findByTask(prefix + i).stream().filter(r -> r.status() == status).count();
    }
    return n;
  }
}
