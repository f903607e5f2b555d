package dev.ax.resolver;

import dev.ax.common.contract.AxJson;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * AX's JSON (Jackson, unknown fields ignored) as a Kafka Streams serde. A record that cannot be
 * read becomes null, which the topology drops, and is logged: one bad message must not stop the
 * resolver. Stateless.
 */
final class JsonSerde {

  private static final Logger log = LoggerFactory.getLogger(JsonSerde.class);

  private JsonSerde() {}

  static <T> Serde<T> of(Class<T> type) {
    Serializer<T> serializer = (topic, value) -> value == null ? null : AxJson.write(value);
    Deserializer<T> deserializer =
        (topic, bytes) -> {
          if (bytes == null) {
            return null;
          }
          try {
            return AxJson.read(bytes, type);
          } catch (RuntimeException e) {
            log.warn(
                "Ignoring an unreadable {} on {}: {}", type.getSimpleName(), topic, e.getMessage());
            return null;
          }
        };
    return Serdes.serdeFrom(serializer, deserializer);
  }
}
