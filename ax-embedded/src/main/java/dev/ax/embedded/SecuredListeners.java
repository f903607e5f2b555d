package dev.ax.embedded;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * Two more listeners for an embedded broker, beside its PLAINTEXT one: {@code SASL_PLAINTEXT} with
 * the PLAIN mechanism and the users given, and {@code SSL} with the key store given (PKCS12; no
 * client certificate asked). For tests of clients' transport security; the broker's own traffic
 * stays on PLAINTEXT. Immutable.
 *
 * @param plainUsers the SASL/PLAIN users the broker accepts, name to password
 */
public record SecuredListeners(
    int saslPort,
    int sslPort,
    Map<String, String> plainUsers,
    Path keyStore,
    String keyStorePassword) {

  public static final String SASL_LISTENER = "SASL";
  public static final String SSL_LISTENER = "TLS";

  public SecuredListeners {
    plainUsers = Map.copyOf(plainUsers);
  }

  /** Both listeners on free loopback ports. */
  public static SecuredListeners onFreePorts(
      Map<String, String> plainUsers, Path keyStore, String keyStorePassword) {
    List<Integer> ports = FreePorts.loopback(2);
    return new SecuredListeners(ports.get(0), ports.get(1), plainUsers, keyStore, keyStorePassword);
  }

  /** {@code 127.0.0.1:<saslPort>}. */
  public String saslBootstrapServers() {
    return "127.0.0.1:" + saslPort;
  }

  /** {@code 127.0.0.1:<sslPort>}. */
  public String sslBootstrapServers() {
    return "127.0.0.1:" + sslPort;
  }

  /** The broker settings that add both listeners to a broker of {@link KafkaBrokerProperties}. */
  Properties brokerProperties(int brokerPort, int controllerPort) {
    String plaintext = KafkaBrokerProperties.BROKER_LISTENER + "://127.0.0.1:" + brokerPort;
    String sasl = SASL_LISTENER + "://127.0.0.1:" + saslPort;
    String ssl = SSL_LISTENER + "://127.0.0.1:" + sslPort;
    Properties p = new Properties();
    p.setProperty(
        "listeners",
        String.join(
            ",",
            plaintext,
            KafkaBrokerProperties.CONTROLLER_LISTENER + "://127.0.0.1:" + controllerPort,
            sasl,
            ssl));
    p.setProperty("advertised.listeners", String.join(",", plaintext, sasl, ssl));
    p.setProperty(
        "listener.security.protocol.map",
        KafkaBrokerProperties.BROKER_LISTENER
            + ":PLAINTEXT,"
            + KafkaBrokerProperties.CONTROLLER_LISTENER
            + ":PLAINTEXT,"
            + SASL_LISTENER
            + ":SASL_PLAINTEXT,"
            + SSL_LISTENER
            + ":SSL");
    p.putAll(saslPlain(plainUsers));
    String tls = "listener.name." + SSL_LISTENER.toLowerCase(Locale.ROOT) + ".";
    p.setProperty(tls + "ssl.keystore.location", keyStore.toString());
    p.setProperty(tls + "ssl.keystore.password", keyStorePassword);
    p.setProperty(tls + "ssl.key.password", keyStorePassword);
    p.setProperty(tls + "ssl.keystore.type", "PKCS12");
    p.setProperty(tls + "ssl.client.auth", "none");
    return p;
  }

  /** The settings of the {@link #SASL_LISTENER} listener: PLAIN, accepting {@code plainUsers}. */
  static Properties saslPlain(Map<String, String> plainUsers) {
    Properties p = new Properties();
    String prefix = "listener.name." + SASL_LISTENER.toLowerCase(Locale.ROOT) + ".";
    p.setProperty(prefix + "sasl.enabled.mechanisms", "PLAIN");
    StringBuilder jaas =
        new StringBuilder("org.apache.kafka.common.security.plain.PlainLoginModule required");
    plainUsers.forEach(
        (user, password) ->
            jaas.append(" user_").append(user).append("=\"").append(password).append('"'));
    p.setProperty(prefix + "plain.sasl.jaas.config", jaas.append(';').toString());
    return p;
  }
}
