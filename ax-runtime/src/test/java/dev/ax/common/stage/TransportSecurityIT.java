package dev.ax.common.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.common.config.AxConfig;
import dev.ax.common.config.CommonConfig;
import dev.ax.common.store.Jdbc;
import dev.ax.embedded.DatabaseCoordinates;
import dev.ax.embedded.EmbeddedDatabase;
import dev.ax.embedded.EmbeddedKafka;
import dev.ax.embedded.SecuredListeners;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stage's runtime (what every stage's {@code Main} opens) reaches Kafka and the database over the
 * transports it is configured for, and stops with the reason when the settings are wrong: a broker
 * with a SASL/PLAIN and a TLS listener (its key store made by the JDK's keytool), and a database
 * server that requires TLS of every connection.
 */
@ExtendWith(AxInfraExtension.class)
class TransportSecurityIT {

  private static final String STORE_PASSWORD = "store-" + UUID.randomUUID();
  private static final String USER_PASSWORD = "ax-" + UUID.randomUUID();

  @TempDir static Path dir;
  private static EmbeddedKafka broker;
  private static SecuredListeners listeners;
  private static Path trustStore;

  @BeforeAll
  static void startBroker() throws Exception {
    Path keyStore = dir.resolve("broker.p12");
    Path certificate = dir.resolve("broker.pem");
    trustStore = dir.resolve("trust.p12");
    keytool(
        "-genkeypair",
        "-alias",
        "broker",
        "-keyalg",
        "RSA",
        "-keysize",
        "2048",
        "-validity",
        "2",
        "-dname",
        "CN=localhost",
        "-ext",
        "SAN=IP:127.0.0.1,DNS:localhost",
        "-storetype",
        "PKCS12",
        "-keystore",
        keyStore.toString(),
        "-storepass",
        STORE_PASSWORD,
        "-keypass",
        STORE_PASSWORD);
    keytool(
        "-exportcert",
        "-alias",
        "broker",
        "-keystore",
        keyStore.toString(),
        "-storepass",
        STORE_PASSWORD,
        "-rfc",
        "-file",
        certificate.toString());
    keytool(
        "-importcert",
        "-noprompt",
        "-alias",
        "broker",
        "-file",
        certificate.toString(),
        "-storetype",
        "PKCS12",
        "-keystore",
        trustStore.toString(),
        "-storepass",
        STORE_PASSWORD);
    listeners = SecuredListeners.onFreePorts(Map.of("ax", USER_PASSWORD), keyStore, STORE_PASSWORD);
    broker = EmbeddedKafka.startWithSecuredListeners(dir.resolve("kafka"), listeners);
  }

  @AfterAll
  static void stopBroker() {
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void saslPlainWithTheRightPasswordConnectsAndAWrongOneStopsTheStageWithTheReason(AxTestEnv env)
      throws Exception {
    Map<String, String> sasl =
        Map.of(
            "AX_KAFKA_BOOTSTRAP", listeners.saslBootstrapServers(),
            "AX_KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT",
            "AX_KAFKA_SASL_MECHANISM", "PLAIN");
    Map<String, String> right = new HashMap<>(sasl);
    right.put("AX_KAFKA_SASL_JAAS_CONFIG", jaas("ax", USER_PASSWORD));
    try (StageRuntime runtime = StageRuntime.openWithoutDatabase(config(env, right), "sasl")) {
      sendsOne(runtime);
    }

    Map<String, String> wrong = new HashMap<>(sasl);
    wrong.put("AX_KAFKA_SASL_JAAS_CONFIG", jaas("ax", "not-" + USER_PASSWORD));
    assertThatThrownBy(() -> StageRuntime.openWithoutDatabase(config(env, wrong), "sasl").close())
        .hasStackTraceContaining("Authentication failed")
        .satisfies(
            e ->
                assertThat(stackOf(e))
                    .as("the wrong password is not in the error")
                    .doesNotContain("not-" + USER_PASSWORD));
  }

  @Test
  void theJaasLineCanComeFromAFileAsMountedSecretsDo(AxTestEnv env) throws Exception {
    Path secret = dir.resolve("jaas-" + UUID.randomUUID());
    Files.writeString(secret, jaas("ax", USER_PASSWORD) + "\n", StandardCharsets.UTF_8);
    Map<String, String> settings =
        Map.of(
            "AX_KAFKA_BOOTSTRAP",
            listeners.saslBootstrapServers(),
            "AX_KAFKA_SECURITY_PROTOCOL",
            "SASL_PLAINTEXT",
            "AX_KAFKA_SASL_MECHANISM",
            "PLAIN",
            "AX_KAFKA_SASL_JAAS_CONFIG_FILE",
            secret.toString());
    CommonConfig config = config(env, settings);
    assertThat(config.toString()).doesNotContain(USER_PASSWORD);
    try (StageRuntime runtime = StageRuntime.openWithoutDatabase(config, "sasl-file")) {
      sendsOne(runtime);
    }
  }

  @Test
  void tlsWithTheTrustStoreConnectsAndWithoutItStopsTheStageWithTheReason(AxTestEnv env)
      throws Exception {
    Map<String, String> tls =
        Map.of(
            "AX_KAFKA_BOOTSTRAP",
            listeners.sslBootstrapServers(),
            "AX_KAFKA_SECURITY_PROTOCOL",
            "SSL");
    Map<String, String> trusted = new HashMap<>(tls);
    trusted.put("AX_KAFKA_SSL_TRUSTSTORE_LOCATION", trustStore.toString());
    trusted.put("AX_KAFKA_SSL_TRUSTSTORE_PASSWORD", STORE_PASSWORD);
    try (StageRuntime runtime = StageRuntime.openWithoutDatabase(config(env, trusted), "tls")) {
      sendsOne(runtime);
    }

    // The JVM's own trust store does not know the broker's self-signed certificate.
    assertThatThrownBy(() -> StageRuntime.openWithoutDatabase(config(env, tls), "tls").close())
        .hasStackTraceContaining("SSL handshake failed");
  }

  @Test
  void aPropertiesFileReachesEveryClient(AxTestEnv env) throws Exception {
    Path file = dir.resolve("client-" + UUID.randomUUID() + ".properties");
    Files.writeString(
        file,
        String.join(
            "\n",
            "security.protocol=SSL",
            "ssl.truststore.location=" + trustStore,
            "ssl.truststore.password=" + STORE_PASSWORD),
        StandardCharsets.UTF_8);
    Map<String, String> settings =
        Map.of(
            "AX_KAFKA_BOOTSTRAP", listeners.sslBootstrapServers(),
            "AX_KAFKA_PROPERTIES_FILE", file.toString());
    try (StageRuntime runtime = StageRuntime.openWithoutDatabase(config(env, settings), "file")) {
      sendsOne(runtime);
    }
  }

  @Test
  void aDatabaseThatRequiresTlsIsReachedWithTlsAndRefusedWithoutIt(AxTestEnv env) throws Exception {
    try (EmbeddedDatabase server = EmbeddedDatabase.startRequiringTls(dir.resolve("mariadb"))) {
      try (Connection admin =
              DriverManager.getConnection(
                  server.serverJdbcUrl() + separator(server.serverJdbcUrl()) + "sslMode=REQUIRED",
                  server.user(),
                  server.password());
          Statement statement = admin.createStatement()) {
        statement.execute("CREATE DATABASE IF NOT EXISTS ax_tls");
      }
      Map<String, String> tls =
          Map.of(
              "AX_JDBC_URL", server.jdbcUrl("ax_tls"),
              "AX_JDBC_USER", server.user(),
              "AX_JDBC_PASSWORD", server.password());

      Map<String, String> required = new HashMap<>(tls);
      required.put("AX_JDBC_SSL_MODE", "REQUIRED");
      try (StageRuntime runtime = StageRuntime.open(config(env, required), "db-tls")) {
        assertThat(sslCipher(runtime)).as("the session's TLS cipher").isNotBlank();
      }

      Map<String, String> disabled = new HashMap<>(tls);
      disabled.put("AX_JDBC_SSL_MODE", "DISABLED");
      assertThatThrownBy(() -> StageRuntime.open(config(env, disabled), "db-plain").close())
          .hasStackTraceContaining("insecure transport");

      // The server's certificate is self-signed: verifying it against the JVM's CAs fails.
      Map<String, String> verify = new HashMap<>(tls);
      verify.put("AX_JDBC_SSL_MODE", "VERIFY_CA");
      assertThatThrownBy(() -> StageRuntime.open(config(env, verify), "db-verify").close())
          .hasStackTraceContaining("PKIX");

      // What the URL says wins over the key.
      Map<String, String> urlWins = new HashMap<>(required);
      String url = server.jdbcUrl("ax_tls");
      urlWins.put("AX_JDBC_URL", url + separator(url) + "sslMode=DISABLED");
      assertThatThrownBy(() -> StageRuntime.open(config(env, urlWins), "db-url").close())
          .hasStackTraceContaining("insecure transport");
    }
  }

  private static String sslCipher(StageRuntime runtime) {
    return new Jdbc(runtime.context().dataSource())
        .query(
            "reading the session's cipher",
            "SHOW SESSION STATUS LIKE 'Ssl_cipher'",
            Jdbc.Binder.values(),
            rows -> rows.getString(2))
        .get(0);
  }

  private static String separator(String jdbcUrl) {
    return jdbcUrl.contains("?") ? "&" : "?";
  }

  /** One record through the runtime's own producer (the brokers and security of the process). */
  private static void sendsOne(StageRuntime runtime) throws Exception {
    StageContext context = runtime.context();
    try (var producer = context.producer("probe")) {
      producer
          .send(new ProducerRecord<>(context.topics().completed(), "k", new byte[] {1}))
          .get(30, TimeUnit.SECONDS);
    }
  }

  private CommonConfig config(AxTestEnv env, Map<String, String> settings) {
    DatabaseCoordinates database = env.database();
    Map<String, String> all = new HashMap<>();
    all.put("AX_TOPIC_PREFIX", env.topicPrefix());
    all.put("AX_TOPIC_PARTITIONS", "1");
    all.put("AX_METRICS_BIND", "off");
    all.put("AX_KAFKA_BOOTSTRAP", env.bootstrapServers());
    all.put("AX_JDBC_URL", database.jdbcUrl());
    all.put("AX_JDBC_USER", database.user());
    all.put("AX_JDBC_PASSWORD", database.password());
    all.putAll(settings);
    return CommonConfig.from(AxConfig.load(Map.of(), Map.of(), all));
  }

  private static String jaas(String user, String password) {
    return "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
        + user
        + "\" password=\""
        + password
        + "\";";
  }

  private static String stackOf(Throwable e) {
    java.io.StringWriter out = new java.io.StringWriter();
    e.printStackTrace(new java.io.PrintWriter(out));
    return out.toString();
  }

  private static void keytool(String... args) throws Exception {
    List<String> command = new java.util.ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("keytool ends").isTrue();
    assertThat(process.exitValue()).as("keytool %s: %s", args[0], output).isZero();
  }
}
