package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TopicReader;
import dev.ax.dispatcher.DispatcherConfig;
import dev.ax.dispatcher.DispatcherStage;
import dev.ax.dispatcher.store.ClaimStore;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.nio.charset.StandardCharsets;
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
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Dispatchers scale out in one consumer group: three of them share 3,000 instances while one joins
 * and another leaves in the middle of the load, and every instance runs exactly once.
 *
 * <p>The size only has to keep instances in flight (due, held, claimed, running) through both
 * rebalances: the join and the leave wait for fixed fractions of the completions, the spread keeps
 * the load going for longer than a rebalance takes, and the number in flight at any moment follows
 * the rate at which ingest stores and the ticker fires, not the total. Ingest's transactions bound
 * that rate on the test database, so a larger load only lengthens the run.
 */
@ExtendWith(AxInfraExtension.class)
class ScaleOutIT {

  private static final int TASKS = 3_000;
  private static final long SPREAD_MS = 8_000;

  @Test
  void threeDispatchersShareThreeThousandInstancesThroughTwoRebalancesAndRunEachOnce(AxTestEnv env)
      throws Exception {
    Map<String, String> config = Map.of("AX_DISPATCHER_THREADS", "16");
    List<DispatcherStage> dispatchers = new ArrayList<>();
    try (TestRuntime runtime = TestRuntime.open(env, config);
        RunningStages core = RunningStages.on(runtime, "core").ingest().ticker();
        KafkaProducer<String, byte[]> producer = UserClients.producer(runtime);
        TopicReader completed = UserClients.completed(runtime)) {
      DispatcherStage first =
          new DispatcherStage(runtime.context("disp-1"), DispatcherConfig.from(runtime.config()))
              .start();
      dispatchers.add(first);
      dispatchers.add(
          new DispatcherStage(runtime.context("disp-2"), DispatcherConfig.from(runtime.config()))
              .start());
      runtime.awaitGroupsAssigned(1, "ingest");
      runtime.awaitGroupsAssigned(2, "dispatcher");

      for (int i = 0; i < TASKS; i++) {
        String taskId = "scale-" + i;
        long delayMs = i * SPREAD_MS / TASKS;
        String json =
            "{\"v\":1,\"taskId\":\""
                + taskId
                + "\",\"trigger\":{\"type\":\"ONCE\",\"delayMs\":"
                + delayMs
                + "},\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"ledger\"},"
                + "\"params\":{\"workMs\":\"5\"},\"timeoutMs\":30000}";
        producer.send(
            new ProducerRecord<>(
                runtime.topics().commands(), taskId, json.getBytes(StandardCharsets.UTF_8)));
      }
      producer.flush();

      await().atMost(Duration.ofSeconds(60)).until(() -> completed.poll().size() >= TASKS / 4);
      dispatchers.add(
          new DispatcherStage(runtime.context("disp-3"), DispatcherConfig.from(runtime.config()))
              .start()); // joins
      await().atMost(Duration.ofSeconds(60)).until(() -> completed.poll().size() >= TASKS * 6 / 10);
      first.close(); // leaves, with its held events handed back and its runs finished
      await().atMost(Duration.ofSeconds(120)).until(() -> completed.poll().size() >= TASKS);

      InstanceStore instances = new InstanceStore(runtime.dataSource());
      assertThat(instances.countByStatus())
          .as("every instance ended, and ended SUCCESS")
          .containsExactly(Map.entry(InstanceStatus.SUCCESS, (long) TASKS));
      Set<String> completedInstances = new HashSet<>();
      for (ConsumerRecord<String, byte[]> record : completed.poll()) {
        TaskCompletedEvent event = AxJson.read(record.value(), TaskCompletedEvent.class);
        assertThat(event.attempt()).as("first attempt of %s", event.instanceId()).isEqualTo(1);
        completedInstances.add(event.instanceId());
      }
      assertThat(completed.poll()).as("one completion event per instance").hasSize(TASKS);
      assertThat(completedInstances).hasSize(TASKS);
      assertThat(RunLedger.RUNS).as("instances run").hasSize(TASKS);
      assertThat(RunLedger.RUNS.values()).as("runs per instance").containsOnly(1);
      assertThat(
              countRows(
                  runtime.dataSource(),
                  "SELECT COUNT(*) FROM (SELECT r.instance_id FROM ax_instance_log r"
                      + " WHERE r.to_status = 'RUNNING' GROUP BY r.instance_id, r.attempt"
                      + " HAVING COUNT(*) > 1 + (SELECT COUNT(*) FROM ax_instance_log x"
                      + " WHERE x.instance_id = r.instance_id AND x.attempt = r.attempt"
                      + " AND x.reason = '"
                      + ClaimStore.RELEASED_UNSTARTED
                      + "')) twice"))
          .as("attempts started twice, by the audit log")
          .isZero();
      Map<String, Long> byOwner = countByOwner(runtime.dataSource());
      System.out.println("Scale-out test: instances run per dispatcher " + byOwner);
      assertThat(byOwner.keySet()).containsExactlyInAnyOrder("disp-1", "disp-2", "disp-3");
      assertThat(byOwner.values()).allSatisfy(count -> assertThat(count).isPositive());
    } finally {
      for (DispatcherStage dispatcher : dispatchers) {
        dispatcher.close();
      }
    }
  }

  private static long countRows(DataSource dataSource, String sql) throws Exception {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getLong(1);
    }
  }

  private static Map<String, Long> countByOwner(DataSource dataSource) throws Exception {
    Map<String, Long> byOwner = new HashMap<>();
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet rows =
            statement.executeQuery("SELECT owner, COUNT(*) FROM ax_instance GROUP BY owner")) {
      while (rows.next()) {
        byOwner.put(rows.getString(1), rows.getLong(2));
      }
    }
    return byOwner;
  }
}
