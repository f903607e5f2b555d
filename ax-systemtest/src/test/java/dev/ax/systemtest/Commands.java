package dev.ax.systemtest;

import static org.awaitility.Awaitility.await;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.Jdbc;
import dev.ax.common.testing.TestRuntime;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Sends task commands as plain JSON, the way a user's producer would. */
final class Commands {

  private Commands() {}

  /**
   * Sends the {@link #create} command of {@code taskId} with {@code body}, keyed by the task id,
   * and waits until the broker has it.
   *
   * @param body the command's other fields, e.g. {@code "trigger":{...},"executor":{...}}
   */
  static void send(
      KafkaProducer<String, byte[]> producer, TestRuntime runtime, String taskId, String body)
      throws Exception {
    sendJson(producer, runtime, taskId, create(taskId, body));
  }

  /** The JSON of a create command: {@code {"v":1,"taskId":..., <body>, "timeoutMs":5000}}. */
  static String create(String taskId, String body) {
    return "{\"v\":1,\"taskId\":\"" + taskId + "\"," + body + ",\"timeoutMs\":5000}";
  }

  /** A lifecycle command ({@code PAUSE}, {@code RESUME}, ...) for one task, with its command id. */
  static String lifecycle(String type, String taskId, String commandId) {
    return "{\"v\":1,\"type\":\""
        + type
        + "\",\"taskId\":\""
        + taskId
        + "\",\"commandId\":\""
        + commandId
        + "\"}";
  }

  /** How many of {@code rows} are in {@code status}. */
  static long count(List<InstanceRow> rows, InstanceStatus status) {
    return rows.stream().filter(r -> r.status() == status).count();
  }

  /** How many lifecycle commands were applied to {@code taskId} ({@code ax_task_command} rows). */
  static long appliedCommands(TestRuntime runtime, String taskId) {
    return new Jdbc(runtime.dataSource())
        .queryLong(
            "counting applied commands",
            "SELECT COUNT(*) FROM ax_task_command WHERE task_id = ?",
            Jdbc.Binder.values(taskId));
  }

  /** Sends {@code json} as it is, keyed by {@code taskId}, and waits until the broker has it. */
  static void sendJson(
      KafkaProducer<String, byte[]> producer, TestRuntime runtime, String taskId, String json)
      throws Exception {
    producer
        .send(
            new ProducerRecord<>(
                runtime.topics().commands(), taskId, json.getBytes(StandardCharsets.UTF_8)))
        .get();
  }

  /**
   * The first instance of {@code taskId} (earliest due) once it satisfies {@code done}, waiting up
   * to a minute.
   */
  static InstanceRow awaitFirstInstance(
      TestRuntime runtime, String taskId, Predicate<InstanceRow> done) {
    InstanceStore instances = new InstanceStore(runtime.dataSource());
    return await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> instances.findByTask(taskId).stream().findFirst(),
            row -> row.isPresent() && done.test(row.get()))
        .orElseThrow();
  }
}
