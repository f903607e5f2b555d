package dev.ax.common.kafka;

import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.SaslConfigs;

/**
 * Where the brokers are and how to reach them: the bootstrap servers and the client settings every
 * Kafka client of the process gets, producers, consumers, admin and Streams alike (security
 * protocol, SASL, trust and key stores, and whatever {@code AX_KAFKA_PROPERTIES_FILE} adds). AX's
 * own client settings ({@link KafkaClients}) are put after these, so they win. The settings come
 * from the configuration ({@code KafkaClientSettings}).
 *
 * <p>Immutable. {@link #toString()} names the bootstrap servers, the protocol and the mechanism and
 * never a password or a JAAS line.
 *
 * @param clientProperties Kafka client properties by their Kafka names, without {@code
 *     bootstrap.servers}
 */
public record KafkaConnection(String bootstrapServers, Map<String, String> clientProperties) {

  public KafkaConnection {
    if (bootstrapServers == null || bootstrapServers.isBlank()) {
      throw new IllegalArgumentException("bootstrap servers are required");
    }
    clientProperties = Map.copyOf(clientProperties);
  }

  /** A broker reached without TLS or SASL: the embedded one, or a trusted network. */
  public static KafkaConnection plaintext(String bootstrapServers) {
    return new KafkaConnection(bootstrapServers, Map.of());
  }

  /** The client properties with {@code bootstrap.servers}: what every client starts from. */
  public Properties properties() {
    Properties properties = new Properties();
    properties.putAll(clientProperties);
    properties.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    return properties;
  }

  /** The security protocol the clients use. */
  public String securityProtocol() {
    return clientProperties.getOrDefault(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "PLAINTEXT");
  }

  @Override
  public String toString() {
    String mechanism = clientProperties.get(SaslConfigs.SASL_MECHANISM);
    return bootstrapServers
        + " ("
        + securityProtocol()
        + (mechanism == null ? "" : ", " + mechanism)
        + (clientProperties.isEmpty() ? "" : ", " + clientProperties.size() + " client setting(s)")
        + ")";
  }
}
