package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ax.common.testing.TestRuntime;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.embedded.junit.WallClock;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The whole one-shot path through real stages, driven the way a user would: plain JSON strings
 * produced with a bare KafkaProducer, outcomes read with a bare KafkaConsumer.
 */
@ExtendWith(AxInfraExtension.class)
@WallClock
class OneShotPipelineIT {

  private static final int TASKS = 1000;
  private static final long MAX_DELAY_MS = 5000;
  private static final long CONTRACT_LATENESS_MS = 500;

  @Test
  void aThousandOneShotTasksEachRunOnceOnTime(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env);
        RunningStages stages = RunningStages.on(runtime, "node-1").ingest().ticker().dispatcher()) {
      runtime.awaitGroupsAssigned(1, "ingest", "dispatcher");
      warmUp(runtime);

      Random random = new Random(42);
      try (KafkaProducer<String, String> producer = plainProducer(runtime.bootstrapServers())) {
        for (int i = 0; i < TASKS; i++) {
          String taskId = "one-shot-" + i;
          long delayMs = (long) (random.nextDouble() * MAX_DELAY_MS);
          String json =
              "{\"v\":1,\"type\":\"CREATE\",\"taskId\":\""
                  + taskId
                  + "\","
                  + "\"trigger\":{\"type\":\"ONCE\",\"delayMs\":"
                  + delayMs
                  + "},"
                  + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"},\"timeoutMs\":10000}";
          producer.send(new ProducerRecord<>(runtime.topics().commands(), taskId, json));
        }
        producer.flush();
      }

      Map<String, List<JsonNode>> completions = new HashMap<>();
      ObjectMapper json = new ObjectMapper();
      try (KafkaConsumer<String, String> consumer = plainConsumer(runtime.bootstrapServers())) {
        consumer.subscribe(List.of(runtime.topics().completed()));
        await()
            .atMost(Duration.ofSeconds(90))
            .pollInterval(Duration.ofMillis(10))
            .until(
                () -> {
                  for (ConsumerRecord<String, String> record :
                      consumer.poll(Duration.ofMillis(200))) {
                    if (record.key().startsWith("warm-up-")) {
                      continue;
                    }
                    completions
                        .computeIfAbsent(record.key(), k -> new ArrayList<>())
                        .add(json.readTree(record.value()));
                  }
                  return completions.size() >= TASKS;
                });
        // Anything still in flight would show up as a duplicate now.
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofSeconds(2))) {
          if (record.key().startsWith("warm-up-")) {
            continue;
          }
          completions
              .computeIfAbsent(record.key(), k -> new ArrayList<>())
              .add(json.readTree(record.value()));
        }
      }

      assertThat(completions).hasSize(TASKS);
      long[] startLateness = new long[TASKS];
      long[] claimLateness = new long[TASKS];
      List<String> late = new ArrayList<>();
      int i = 0;
      for (Map.Entry<String, List<JsonNode>> entry : completions.entrySet()) {
        assertThat(entry.getValue()).as("completions of %s", entry.getKey()).hasSize(1);
        JsonNode event = entry.getValue().get(0);
        assertThat(event.get("status").asText()).isEqualTo("SUCCESS");
        assertThat(event.get("attempt").asInt()).isEqualTo(1);
        long dueAtMs = event.get("dueAtMs").asLong();
        long startedAtMs = event.get("startedAtMs").asLong();
        assertThat(startedAtMs).as("start of %s", entry.getKey()).isGreaterThanOrEqualTo(dueAtMs);
        startLateness[i] = startedAtMs - dueAtMs;
        claimLateness[i++] = event.get("lateMs").asLong();
        if (startedAtMs - dueAtMs > CONTRACT_LATENESS_MS) {
          late.add(entry.getKey() + " " + event);
        }
      }
      System.out.printf(
          "OneShotPipelineIT lateness over %d tasks: claim p50=%d p99=%d max=%d ms; start p50=%d p99=%d max=%d ms%n",
          TASKS,
          percentile(claimLateness, 0.50),
          percentile(claimLateness, 0.99),
          percentile(claimLateness, 1.0),
          percentile(startLateness, 0.50),
          percentile(startLateness, 0.99),
          percentile(startLateness, 1.0));
      assertThat(late)
          .as("tasks started more than %d ms after their due time", CONTRACT_LATENESS_MS)
          .isEmpty();

      // Every transition left an audit row: created, due, claimed, completed.
      try (Connection connection = runtime.dataSource().getConnection();
          Statement statement = connection.createStatement();
          ResultSet rs =
              statement.executeQuery(
                  "SELECT COUNT(*), MIN(n), MAX(n) FROM (SELECT instance_id, COUNT(*) n FROM ax_instance_log"
                      + " WHERE task_id LIKE 'one-shot-%' GROUP BY instance_id) x")) {
        rs.next();
        assertThat(rs.getLong(1)).isEqualTo(TASKS);
        assertThat(rs.getLong(2)).isEqualTo(4);
        assertThat(rs.getLong(3)).isEqualTo(4);
      }
    }
  }

  /**
   * Runs a few hundred tasks through the pipeline first: the contract is about a running
   * deployment, not about the first seconds of a cold JVM (class loading, JIT) on a shared machine.
   * The warm-up tasks are not measured.
   */
  private static void warmUp(TestRuntime runtime) {
    int warmUpTasks = 300;
    try (KafkaProducer<String, String> producer = plainProducer(runtime.bootstrapServers());
        KafkaConsumer<String, String> consumer = plainConsumer(runtime.bootstrapServers())) {
      consumer.subscribe(List.of(runtime.topics().completed()));
      for (int i = 0; i < warmUpTasks; i++) {
        String taskId = "warm-up-" + i;
        producer.send(
            new ProducerRecord<>(
                runtime.topics().commands(),
                taskId,
                "{\"v\":1,\"taskId\":\""
                    + taskId
                    + "\",\"trigger\":{\"type\":\"ONCE\",\"delayMs\":"
                    + (i * 3)
                    + "},\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"},\"timeoutMs\":10000}"));
      }
      producer.flush();
      int[] seen = {0};
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                seen[0] += consumer.poll(Duration.ofMillis(200)).count();
                return seen[0] >= warmUpTasks;
              });
    }
  }

  private static long percentile(long[] values, double p) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    int index = (int) Math.ceil(p * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(index, sorted.length - 1))];
  }

  static KafkaProducer<String, String> plainProducer(String bootstrap) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    return new KafkaProducer<>(props);
  }

  private static KafkaConsumer<String, String> plainConsumer(String bootstrap) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.GROUP_ID_CONFIG, "user-" + UUID.randomUUID());
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    return new KafkaConsumer<>(props);
  }
}
