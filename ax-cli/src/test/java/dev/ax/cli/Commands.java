package dev.ax.cli;

import dev.ax.common.testing.TestRuntime;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Sends task commands as plain JSON, the way a user's producer would. */
final class Commands {

  private Commands() {}

  /**
   * Sends {@code {"v":1,"taskId":..., <body>, "timeoutMs":5000}} keyed by the task id and waits
   * until the broker has it.
   *
   * @param body the command's other fields, e.g. {@code "trigger":{...},"executor":{...}}
   */
  static void send(
      KafkaProducer<String, byte[]> producer, TestRuntime runtime, String taskId, String body)
      throws Exception {
    String json = "{\"v\":1,\"taskId\":\"" + taskId + "\"," + body + ",\"timeoutMs\":5000}";
    producer
        .send(
            new ProducerRecord<>(
                runtime.topics().commands(), taskId, json.getBytes(StandardCharsets.UTF_8)))
        .get();
  }
}
