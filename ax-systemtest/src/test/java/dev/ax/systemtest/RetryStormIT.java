package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TopicReader;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.embedded.junit.WallClock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A retry storm: 2,000 tasks fail at once and come back through the retry stage while 2,000 healthy
 * tasks are due. The healthy tasks stay within the 500 ms contract and the retry stage never
 * dispatches faster than its quota.
 *
 * <p>The storm only has to outlast the healthy tasks' window at the quota's rate: its retries come
 * back from 1 s after it for {@code FAILING / RETRY_RATE} seconds (10), the healthy tasks are due
 * from 5 s to 7 s after it. A larger storm lengthens the run, not the overlap.
 */
@ExtendWith(AxInfraExtension.class)
@WallClock
class RetryStormIT {

  private static final int FAILING = 2_000;
  private static final int HEALTHY = 2_000;
  private static final int RETRY_RATE = 200;
  private static final long CONTRACT_LATENESS_MS = 500;

  @Test
  void aRetryStormNeitherDelaysHealthyTasksNorExceedsItsQuota(AxTestEnv env) throws Exception {
    Map<String, String> config =
        Map.of("AX_RETRY_RATE", Integer.toString(RETRY_RATE), "AX_RETRY_RESCAN", "1s");
    try (TestRuntime runtime = TestRuntime.open(env, config);
        RunningStages stages =
            RunningStages.on(runtime, "node-1").ingest().ticker().retries().dispatcher();
        KafkaProducer<String, String> producer =
            OneShotPipelineIT.plainProducer(runtime.bootstrapServers());
        TopicReader completed = UserClients.completed(runtime)) {
      runtime.awaitGroupsAssigned(1, "ingest", "retry", "deadletter", "dispatcher");
      long nowMs = runtime.clock().millis();
      // Warm-up, unmeasured: the first tasks of a cold JVM are slow for reasons retries do not
      // cause (class loading, JIT), see OneShotPipelineIT.
      for (int i = 0; i < 300; i++) {
        send(producer, runtime, "warm-" + i, nowMs + 1000 + i * 3L, "noop", "");
      }
      long stormAtMs = nowMs + 6_000;
      for (int i = 0; i < FAILING; i++) {
        send(
            producer,
            runtime,
            "failing-" + i,
            stormAtMs,
            "sleep",
            ",\"params\":{\"sleepMs\":\"0\",\"fail\":\"true\"},\"retry\":{\"maxRetries\":1,"
                + "\"backoffBaseMs\":1000,\"backoffMaxMs\":1000,\"jitter\":false}");
      }
      // Due while the retries come back (from storm + 1 s on, at the quota's rate for 10 s).
      long healthyFromMs = stormAtMs + 5_000;
      for (int i = 0; i < HEALTHY; i++) {
        send(producer, runtime, "healthy-" + i, healthyFromMs + i, "noop", "");
      }
      producer.flush();

      InstanceStore instances = new InstanceStore(runtime.dataSource());
      await()
          .atMost(Duration.ofSeconds(150))
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () ->
                  instances.countByStatus().getOrDefault(InstanceStatus.DEAD, 0L) == FAILING
                      && completedHealthy(completed.poll()) >= HEALTHY);

      List<Long> lateness = new ArrayList<>();
      for (ConsumerRecord<String, byte[]> record : completed.poll()) {
        TaskCompletedEvent event = AxJson.read(record.value(), TaskCompletedEvent.class);
        if (event.taskId().startsWith("healthy-")) {
          assertThat(event.status()).isEqualTo(InstanceStatus.SUCCESS);
          lateness.add(event.startedAtMs() - event.dueAtMs());
        }
      }
      assertThat(lateness).as("each healthy task ran once").hasSize(HEALTHY);
      Collections.sort(lateness);
      long p50 = lateness.get(HEALTHY / 2);
      long p99 = lateness.get(HEALTHY * 99 / 100);
      long max = lateness.get(HEALTHY - 1);
      Map<Long, Integer> retriesPerSecond = retriesDispatchedPerSecond(runtime);
      int busiest = Collections.max(retriesPerSecond.values());
      System.out.printf(
          "Retry storm: healthy start lateness p50 %d / p99 %d / max %d ms; retries dispatched"
              + " in the busiest second %d (quota %d/s) over %d seconds%n",
          p50, p99, max, busiest, RETRY_RATE, retriesPerSecond.size());
      assertThat(lateness.get(0)).as("nothing early").isNotNegative();
      assertThat(p99).as("healthy p99 start lateness").isLessThanOrEqualTo(CONTRACT_LATENESS_MS);
      assertThat(busiest)
          .as("retries dispatched in any one second")
          .isLessThanOrEqualTo(RETRY_RATE + RETRY_RATE / 10);
      assertThat(retriesPerSecond.values().stream().mapToInt(Integer::intValue).sum())
          .isEqualTo(FAILING);
    }
  }

  private static void send(
      KafkaProducer<String, String> producer,
      TestRuntime runtime,
      String taskId,
      long atMs,
      String handler,
      String extra) {
    String json =
        "{\"v\":1,\"taskId\":\""
            + taskId
            + "\",\"trigger\":{\"type\":\"ONCE\",\"atMs\":"
            + atMs
            + "},\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\""
            + handler
            + "\"},\"timeoutMs\":10000"
            + extra
            + "}";
    producer.send(new ProducerRecord<>(runtime.topics().commands(), taskId, json));
  }

  private static long completedHealthy(List<ConsumerRecord<String, byte[]>> records) {
    return records.stream().filter(r -> r.key().startsWith("healthy-")).count();
  }

  /** RETRYING → DISPATCHED moves per wall-clock second, from the audit log. */
  private static Map<Long, Integer> retriesDispatchedPerSecond(TestRuntime runtime)
      throws Exception {
    Map<Long, Integer> perSecond = new HashMap<>();
    try (Connection connection = runtime.dataSource().getConnection();
        PreparedStatement select =
            connection.prepareStatement(
                "SELECT at_ms DIV 1000, COUNT(*) FROM ax_instance_log"
                    + " WHERE from_status = 'RETRYING' AND to_status = 'DISPATCHED'"
                    + " GROUP BY at_ms DIV 1000");
        ResultSet rows = select.executeQuery()) {
      while (rows.next()) {
        perSecond.put(rows.getLong(1), rows.getInt(2));
      }
    }
    return perSecond;
  }
}
