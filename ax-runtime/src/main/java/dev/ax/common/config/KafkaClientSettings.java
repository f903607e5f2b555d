package dev.ax.common.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The Kafka client settings of the configuration, by their Kafka names: {@code
 * AX_KAFKA_PROPERTIES_FILE} first, then the {@code AX_KAFKA_*} security keys that are set, which
 * win. Every client of a process gets them ({@code KafkaConnection}). Stateless.
 */
public final class KafkaClientSettings {

  /** The largest properties file read: settings, not data. */
  static final long MAX_PROPERTIES_FILE_BYTES = 256 * 1024;

  private KafkaClientSettings() {}

  /**
   * @throws ConfigException when the properties file cannot be read, is too large, or sets what
   *     other keys own (the bootstrap servers, AX keys)
   */
  public static Map<String, String> of(AxConfig config) {
    Map<String, String> properties = new TreeMap<>();
    String file = config.get(CommonKeys.KAFKA_PROPERTIES_FILE);
    if (file != null && !file.isBlank()) {
      properties.putAll(readFile(Path.of(file.trim())));
    }
    put(properties, "security.protocol", config, CommonKeys.KAFKA_SECURITY_PROTOCOL);
    put(properties, "sasl.mechanism", config, CommonKeys.KAFKA_SASL_MECHANISM);
    put(properties, "sasl.jaas.config", config, CommonKeys.KAFKA_SASL_JAAS_CONFIG);
    put(properties, "ssl.truststore.location", config, CommonKeys.KAFKA_SSL_TRUSTSTORE_LOCATION);
    put(properties, "ssl.truststore.password", config, CommonKeys.KAFKA_SSL_TRUSTSTORE_PASSWORD);
    put(properties, "ssl.keystore.location", config, CommonKeys.KAFKA_SSL_KEYSTORE_LOCATION);
    put(properties, "ssl.keystore.password", config, CommonKeys.KAFKA_SSL_KEYSTORE_PASSWORD);
    put(properties, "ssl.key.password", config, CommonKeys.KAFKA_SSL_KEY_PASSWORD);
    return properties;
  }

  /** Whether a Kafka client setting holds a secret: never logged or printed. */
  public static boolean isSecret(String kafkaName) {
    String name = kafkaName.toLowerCase(Locale.ROOT);
    return name.contains("password") || name.contains("jaas") || name.contains("secret");
  }

  private static void put(
      Map<String, String> properties, String kafkaName, AxConfig config, ConfigKey<String> key) {
    String value = config.get(key);
    if (value != null && !value.isBlank()) {
      properties.put(kafkaName, value);
    }
  }

  private static Map<String, String> readFile(Path path) {
    String key = CommonKeys.KAFKA_PROPERTIES_FILE.name();
    Properties properties = new Properties();
    try {
      if (Files.size(path) > MAX_PROPERTIES_FILE_BYTES) {
        throw new ConfigException(
            key + "=" + path + " is larger than " + MAX_PROPERTIES_FILE_BYTES + " bytes");
      }
      try (Reader reader = Files.newBufferedReader(path)) {
        properties.load(reader);
      }
    } catch (IOException e) {
      throw new ConfigException("cannot read " + key + "=" + path + ": " + e);
    }
    Map<String, String> map = new TreeMap<>();
    properties.forEach((k, v) -> map.put(k.toString().trim(), v.toString().trim()));
    if (map.containsKey("bootstrap.servers")) {
      throw new ConfigException(
          key
              + "="
              + path
              + " sets bootstrap.servers: give the brokers in "
              + CommonKeys.KAFKA_BOOTSTRAP.name()
              + " only");
    }
    for (String name : map.keySet()) {
      if (name.toLowerCase(Locale.ROOT).startsWith("ax_")) {
        throw new ConfigException(
            key + "=" + path + " holds an AX key (" + name + "): those go in AX_CONFIG_FILE");
      }
    }
    return map;
  }
}
