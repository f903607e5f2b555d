package dev.ax.bench;

import dev.ax.api.kafka.CommandSender;
import dev.ax.cli.kafka.TopicTail;
import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.kafka.KafkaConnection;
import dev.ax.common.kafka.Topics;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * The bench's two ends on Kafka: task commands out to the commands topic (key = task id, as any
 * client sends them), and the completion events in, read from where that topic ended when the bench
 * opened it. Not thread-safe: used by the bench's main thread.
 *
 * @param completionTail the completion topic, read from its end as it was when opened
 */
record BenchKafka(Topics topics, TopicTail completionTail, CommandSender sender)
    implements AutoCloseable {

  /** Opens both ends; the completions are read from the topic's end as it is now. */
  static BenchKafka open(KafkaConnection kafka, Topics topics, String clientId) {
    TopicTail completions = TopicTail.open(kafka, List.of(topics.completed()), TopicTail.From.END);
    try {
      return new BenchKafka(topics, completions, CommandSender.open(kafka, clientId));
    } catch (RuntimeException e) {
      completions.close();
      throw e;
    }
  }

  /** Sends one task command; {@link #await} says whether the broker has it. */
  Future<RecordMetadata> sendCommand(String taskId, byte[] command) {
    return sender.sendAsync(topics.commands(), taskId, command);
  }

  /**
   * Waits until the broker has {@code send}.
   *
   * @throws CommandSender.SendFailedException if it does not take it
   */
  void await(Future<RecordMetadata> send) throws InterruptedException {
    sender.await(send);
  }

  /** Waits until the broker has every one of {@code sends}. */
  void awaitAll(List<Future<RecordMetadata>> sends) throws InterruptedException {
    for (Future<RecordMetadata> send : sends) {
      sender.await(send);
    }
  }

  /** The completion events that arrive within {@code timeout} (none when it passes first). */
  List<TaskCompletedEvent> completions(Duration timeout) {
    return completionTail.poll(timeout).stream()
        .map(record -> AxJson.read(record.value(), TaskCompletedEvent.class))
        .toList();
  }

  @Override
  public void close() {
    try {
      sender.close();
    } finally {
      completionTail.close();
    }
  }
}
