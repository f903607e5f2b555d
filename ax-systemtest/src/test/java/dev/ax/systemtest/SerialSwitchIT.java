package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.stage.Switches;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.SwitchStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The {@code serial} switch, set through {@code ax switch}: while it is on, a group's attempts run
 * one at a time (no two runs overlap, though the pool has threads for all); {@code ax switch} shows
 * the dispatcher has applied it; once it is off, they run side by side again.
 */
@ExtendWith(AxInfraExtension.class)
class SerialSwitchIT {

  private static final int TASKS = 5;

  @Test
  void serialRunsOneAttemptAtATimePerGroupAndOffRunsThemSideBySide(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env);
        CliRun.Target cli = CliRun.pointAt(env, runtime)) {
      SwitchStore switches = new SwitchStore(runtime.dataSource());
      switches.set(Switches.SERIAL, "on", "test", runtime.clock().millis());
      try (RunningStages stages =
              RunningStages.on(runtime, "node-1").ingest().ticker().dispatcher();
          KafkaProducer<String, byte[]> producer = UserClients.producer(runtime)) {
        runtime.awaitGroupsAssigned(1, "ingest", "dispatcher");
        InstanceStore instances = new InstanceStore(runtime.dataSource());
        List<InstanceRow> serial = runAll(producer, runtime, instances, "serial");
        for (int i = 1; i < serial.size(); i++) {
          assertThat(serial.get(i).claimedAtMs())
              .as("run %d starts only once run %d has finished", i, i - 1)
              .isGreaterThanOrEqualTo(serial.get(i - 1).finishedAtMs());
        }

        CliRun shown = CliRun.ax("switch");
        assertThat(shown.exitCode()).isZero();
        assertThat(line(shown.out(), "serial")).contains("on").contains("ax-dispatcher@node-1");

        CliRun off = CliRun.ax("switch", "serial", "off");
        assertThat(off.exitCode()).as(off.err()).isZero();
        await()
            .atMost(Duration.ofSeconds(10))
            .until(
                () ->
                    switches.applied().stream()
                        .anyMatch(
                            a ->
                                a.name().equals(Switches.SERIAL)
                                    && a.stage().equals("ax-dispatcher@node-1")
                                    && a.version() == 2));
        assertThat(line(CliRun.ax("switch").out(), "serial"))
            .contains("off")
            .contains("ax-dispatcher@node-1")
            .doesNotContain("(v1)");
        List<InstanceRow> parallel = runAll(producer, runtime, instances, "parallel");
        boolean overlap = false;
        for (int i = 1; i < parallel.size(); i++) {
          overlap |= parallel.get(i).claimedAtMs() < parallel.get(i - 1).finishedAtMs();
        }
        assertThat(overlap).as("with serial off, some runs overlap").isTrue();
      }
    }
  }

  /** Sends TASKS one-shot sleeping tasks of {@code group}, due now; their runs by start time. */
  private static List<InstanceRow> runAll(
      KafkaProducer<String, byte[]> producer,
      TestRuntime runtime,
      InstanceStore instances,
      String group)
      throws Exception {
    for (int i = 0; i < TASKS; i++) {
      Commands.send(
          producer,
          runtime,
          group + "-" + i,
          "\"group\":\""
              + group
              + "\",\"trigger\":{\"type\":\"ONCE\",\"delayMs\":0},"
              + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"sleep\"},"
              + "\"params\":{\"sleepMs\":\"400\"}");
    }
    List<InstanceRow> rows = new ArrayList<>();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              rows.clear();
              for (int i = 0; i < TASKS; i++) {
                instances.findByTask(group + "-" + i).stream()
                    .filter(r -> r.status() == InstanceStatus.SUCCESS)
                    .forEach(rows::add);
              }
              return rows.size() == TASKS;
            });
    rows.sort(Comparator.comparing(InstanceRow::claimedAtMs));
    return rows;
  }

  private static String line(String table, String switchName) {
    return table
        .lines()
        .filter(l -> l.startsWith(switchName + " "))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no row for " + switchName + " in\n" + table));
  }
}
