package dev.ax.systemtest;

import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.kafka.RejectHeaders;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TopicReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * The Kafka clients a user's application holds against a {@link TestRuntime}: the producer it sends
 * task commands with (client id {@code user}) and readers of the topics AX answers it on. Each call
 * opens a new client, which the caller closes.
 */
final class UserClients {

  private UserClients() {}

  /** The producer a user sends commands with, as {@link Commands} expects it. */
  static KafkaProducer<String, byte[]> producer(TestRuntime runtime) {
    return KafkaClients.producer(runtime.kafka(), "user");
  }

  /** Everything on the completed topic from the beginning: one event per finished run. */
  static TopicReader completed(TestRuntime runtime) {
    return new TopicReader(runtime.bootstrapServers(), runtime.topics().completed());
  }

  /** Everything on the rejected-commands topic from the beginning, each with its reason header. */
  static TopicReader rejected(TestRuntime runtime) {
    return new TopicReader(runtime.bootstrapServers(), runtime.topics().commandsRejected());
  }

  /** The reason header of every rejection {@code rejected} has read so far, in order. */
  static List<String> reasons(TopicReader rejected) {
    return rejected.poll().stream()
        .map(r -> r.headers().lastHeader(RejectHeaders.REASON))
        .map(h -> h == null ? null : new String(h.value(), StandardCharsets.UTF_8))
        .toList();
  }
}
