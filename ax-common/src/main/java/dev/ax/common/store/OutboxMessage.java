package dev.ax.common.store;

import java.util.Map;
import java.util.Objects;

/**
 * One Kafka record an outcome owes, as the outbox keeps it until the broker has it.
 *
 * @param topic the full topic name (with its prefix)
 * @param key the record key (a task id or a flow run id); may be null
 * @param payload the record value
 * @param headers the record headers, as strings
 */
public record OutboxMessage(String topic, String key, byte[] payload, Map<String, String> headers) {

  public OutboxMessage {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(payload, "payload");
    headers = Map.copyOf(headers);
  }
}
