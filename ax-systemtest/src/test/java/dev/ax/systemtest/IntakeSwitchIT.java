package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.stage.Switches;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.SwitchStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The {@code intake} switch: while it is off, ingest reads no command (1,000 of them wait in Kafka,
 * none stored, the group's offsets do not move); once it is on, every one is stored, once.
 */
@ExtendWith(AxInfraExtension.class)
class IntakeSwitchIT {

  private static final int COMMANDS = 1000;

  @Test
  void intakeOffHoldsCommandsInKafkaAndOnReleasesEveryOne(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      // Off before ingest starts: a stage reads the switches once before its consumer starts, so
      // it reads nothing from its first poll on.
      SwitchStore switches = new SwitchStore(runtime.dataSource());
      switches.set(Switches.INTAKE, "off", "test", runtime.clock().millis());
      try (RunningStages stages = RunningStages.on(runtime, "node-1").ingest();
          KafkaProducer<String, byte[]> producer = UserClients.producer(runtime);
          Admin admin =
              Admin.create(
                  Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, runtime.bootstrapServers()))) {
        runtime.awaitGroupsAssigned(1, "ingest");
        holdAndRelease(runtime, switches, producer, admin);
      }
    }
  }

  private static void holdAndRelease(
      TestRuntime runtime,
      SwitchStore switches,
      KafkaProducer<String, byte[]> producer,
      Admin admin)
      throws Exception {
    // One at a time, each acknowledged before the next: a burst of async sends from one
    // idempotent producer on a busy two-core machine once met OUT_OF_ORDER_SEQUENCE_NUMBER
    // retries that never ended, a client matter this test is not about.
    for (int i = 0; i < COMMANDS; i++) {
      String taskId = "held-" + i;
      Commands.sendJson(
          producer,
          runtime,
          taskId,
          "{\"v\":1,\"taskId\":\""
              + taskId
              + "\",\"trigger\":{\"type\":\"ONCE\",\"delayMs\":3600000},"
              + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"},\"timeoutMs\":5000}");
    }
    Jdbc jdbc = new Jdbc(runtime.dataSource());
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(5))
        .until(() -> storedTasks(jdbc) == 0);
    assertThat(committed(admin, runtime)).as("the group's offsets hold still").isZero();

    switches.set(Switches.INTAKE, "on", "test", runtime.clock().millis());
    await().atMost(Duration.ofSeconds(60)).until(() -> storedTasks(jdbc) == COMMANDS);
    await().atMost(Duration.ofSeconds(30)).until(() -> committed(admin, runtime) == COMMANDS);
    assertThat(end(admin, runtime)).isEqualTo(COMMANDS);
  }

  private static long storedTasks(Jdbc jdbc) {
    return jdbc.queryLong(
        "counting tasks",
        "SELECT COUNT(*) FROM ax_task WHERE task_id LIKE 'held-%'",
        Jdbc.Binder.values());
  }

  /** The ingest group's committed offsets on the command topic, summed over its partitions. */
  private static long committed(Admin admin, TestRuntime runtime) throws Exception {
    return admin
        .listConsumerGroupOffsets(runtime.topics().group("ingest"))
        .partitionsToOffsetAndMetadata()
        .get()
        .entrySet()
        .stream()
        .filter(e -> e.getKey().topic().equals(runtime.topics().commands()))
        .map(Map.Entry::getValue)
        .filter(Objects::nonNull)
        .mapToLong(OffsetAndMetadata::offset)
        .sum();
  }

  private static long end(Admin admin, TestRuntime runtime) throws Exception {
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    int partitions =
        admin
            .describeTopics(List.of(runtime.topics().commands()))
            .allTopicNames()
            .get()
            .get(runtime.topics().commands())
            .partitions()
            .size();
    for (int p = 0; p < partitions; p++) {
      latest.put(new TopicPartition(runtime.topics().commands(), p), OffsetSpec.latest());
    }
    return admin.listOffsets(latest).all().get().values().stream()
        .mapToLong(ListOffsetsResult.ListOffsetsResultInfo::offset)
        .sum();
  }
}
