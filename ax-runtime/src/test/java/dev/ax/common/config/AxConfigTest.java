package dev.ax.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AxConfigTest {

  @Test
  void defaultsApplyWhenNothingIsSet() {
    AxConfig config = fromEnv(Map.of());

    assertThat(config.get(CommonKeys.SHUTDOWN_GRACE)).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.get(CommonKeys.SWITCH_POLL)).isEqualTo(Duration.ofSeconds(2));
    assertThat(config.get(CommonKeys.KAFKA_BOOTSTRAP)).isEmpty();
    assertThat(config.get(CommonKeys.METRICS_BIND)).startsWith("127.0.0.1:");
  }

  @Test
  void overridesBeatSystemPropertiesBeatTheEnvironmentBeatTheFile(@TempDir Path dir)
      throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("ax.properties"),
            "AX_DB_POOL_SIZE=3\nAX_TOPIC_PARTITIONS=4\nAX_TOPIC_PREFIX=file.\n");
    Map<String, String> env =
        Map.of(
            "AX_CONFIG_FILE",
            file.toString(),
            "AX_TOPIC_PARTITIONS",
            "5",
            "AX_TOPIC_PREFIX",
            "env.",
            "PATH",
            "/bin");
    Map<String, String> sys = Map.of("AX_TOPIC_PREFIX", "sys.", "java.version", "17");

    AxConfig config = AxConfig.load(env, sys, Map.of("AX_NODE_ID", "node-7"));

    assertThat(config.get(CommonKeys.DB_POOL_SIZE)).isEqualTo(3);
    assertThat(config.get(CommonKeys.TOPIC_PARTITIONS)).isEqualTo(5);
    assertThat(config.get(CommonKeys.TOPIC_PREFIX)).isEqualTo("sys.");
    assertThat(config.get(CommonKeys.NODE_ID)).isEqualTo("node-7");
  }

  @Test
  void aBadValueStopsStartWithKeyAndValue() {
    assertThatThrownBy(() -> fromEnv(Map.of("AX_SWITCH_POLL", "soon")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("AX_SWITCH_POLL=soon");
    assertThatThrownBy(() -> fromEnv(Map.of("AX_DB_POOL_SIZE", "0")))
        .hasMessageContaining("AX_DB_POOL_SIZE=0")
        .hasMessageContaining("1..500");
  }

  @Test
  void prefixesAndAddressesAreCheckedAtStart() {
    assertThatThrownBy(() -> fromEnv(Map.of("AX_TOPIC_PREFIX", "a b")))
        .hasMessageContaining("AX_TOPIC_PREFIX=a b");
    assertThatThrownBy(() -> fromEnv(Map.of("AX_METRICS_BIND", "localhost:abc")))
        .hasMessageContaining("AX_METRICS_BIND=localhost:abc")
        .hasMessageContaining("host:port or off");
    assertThat(fromEnv(Map.of("AX_METRICS_BIND", "off")).get(CommonKeys.METRICS_BIND))
        .isEqualTo("off");
  }

  @Test
  void aPasswordInsideTheJdbcUrlIsMaskedToo() {
    AxConfig config =
        fromEnv(Map.of("AX_JDBC_URL", "jdbc:mysql://db:3306/ax?user=ax&password=s3cret"));

    assertThat(config.describe(KnownKeys.all())).doesNotContain("s3cret").contains("password=****");
  }

  @Test
  void anUnknownKeyStopsStart() {
    assertThatThrownBy(() -> fromEnv(Map.of("AX_TICKR_HORIZON", "5s")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("unknown configuration key AX_TICKR_HORIZON=5s");
  }

  @Test
  void secretsAreNeverPrinted() {
    AxConfig config = fromEnv(Map.of("AX_JDBC_PASSWORD", "hunter2"));

    assertThat(config.describe(KnownKeys.all()))
        .contains("AX_JDBC_PASSWORD=****")
        .doesNotContain("hunter2");
    assertThat(config.get(CommonKeys.JDBC_PASSWORD)).isEqualTo("hunter2");
    assertThat(CommonConfig.from(config).toString()).doesNotContain("hunter2");
  }

  @Test
  void durationsTakeUnits() {
    assertThat(DurationText.parse("250ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(DurationText.parse("5m")).isEqualTo(Duration.ofMinutes(5));
    assertThat(DurationText.parse("3650d")).isEqualTo(Duration.ofDays(3650));
    assertThat(DurationText.parse("PT2S")).isEqualTo(Duration.ofSeconds(2));
    assertThatThrownBy(() -> DurationText.parse("5")).hasMessageContaining("not a duration");
  }

  @Test
  void theStartUpLineShowsTheGivenKeysOnOneLine() {
    AxConfig config = fromEnv(Map.of("AX_NODE_ID", "n1"));

    String line = config.describe(List.of(CommonKeys.NODE_ID, CommonKeys.SWITCH_POLL));

    assertThat(line).isEqualTo("AX_NODE_ID=n1, AX_SWITCH_POLL=2s");
  }

  @Test
  void aKeySetIsItsPublicStaticKeyFields() {
    assertThat(ConfigKeySet.keysOf(CommonKeys.class))
        .contains(CommonKeys.CONFIG_FILE, CommonKeys.METRICS_BIND)
        .doesNotHaveDuplicates();
    assertThat(KnownKeys.all()).containsAll(new CommonKeys().keys());
  }

  @Test
  void aSecretCanComeFromAFileWithoutItsTrailingLineBreak(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("password"), "s3cret\r\n");

    AxConfig config = fromEnv(Map.of("AX_JDBC_PASSWORD_FILE", file.toString()));

    assertThat(config.get(CommonKeys.JDBC_PASSWORD)).isEqualTo("s3cret");
    assertThat(config.describe(java.util.List.of(CommonKeys.JDBC_PASSWORD)))
        .isEqualTo("AX_JDBC_PASSWORD=****");
  }

  @Test
  void aSecretFileIsRefusedWithItsPathNeverItsContent(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("password"), "s3cret");

    assertThatThrownBy(
            () ->
                fromEnv(Map.of("AX_JDBC_PASSWORD_FILE", file.toString(), "AX_JDBC_PASSWORD", "x")))
        .isInstanceOf(ConfigException.class)
        .hasMessage("both AX_JDBC_PASSWORD and AX_JDBC_PASSWORD_FILE are set: set one of them");
    assertThatThrownBy(
            () -> fromEnv(Map.of("AX_JDBC_PASSWORD_FILE", dir.resolve("missing").toString())))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("cannot read AX_JDBC_PASSWORD_FILE=" + dir.resolve("missing"));
    Path huge = dir.resolve("huge");
    Files.write(huge, new byte[AxConfig.MAX_SECRET_FILE_BYTES + 1]);
    assertThatThrownBy(() -> fromEnv(Map.of("AX_JDBC_PASSWORD_FILE", huge.toString())))
        .hasMessageContaining("is larger than");
  }

  @Test
  void onlySecretsHaveFileKeys(@TempDir Path dir) {
    assertThatThrownBy(() -> fromEnv(Map.of("AX_JDBC_USER_FILE", dir.resolve("user").toString())))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("unknown configuration key AX_JDBC_USER_FILE");
  }

  @Test
  void kafkaClientSettingsComeFromTheFileAndTheKeysWin(@TempDir Path dir) throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("client.properties"),
            "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nrequest.timeout.ms=5000\n");

    AxConfig config =
        fromEnv(
            Map.of(
                "AX_KAFKA_PROPERTIES_FILE", file.toString(),
                "AX_KAFKA_SASL_MECHANISM", "SCRAM-SHA-512",
                "AX_KAFKA_SASL_JAAS_CONFIG", "ScramLoginModule required password=\"p\";"));

    assertThat(KafkaClientSettings.of(config))
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
        .containsEntry("request.timeout.ms", "5000")
        .containsKey("sasl.jaas.config");
    assertThat(CommonConfig.from(config).toString())
        .contains("sasl.jaas.config=****")
        .doesNotContain("password=\"p\"");
  }

  @Test
  void aKafkaPropertiesFileMayNotNameTheBrokers(@TempDir Path dir) throws Exception {
    Path file =
        Files.writeString(dir.resolve("client.properties"), "bootstrap.servers=elsewhere:9092\n");

    assertThatThrownBy(
            () ->
                KafkaClientSettings.of(
                    fromEnv(Map.of("AX_KAFKA_PROPERTIES_FILE", file.toString()))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("sets bootstrap.servers");
  }

  @Test
  void theKafkaSecurityKeysAreChecked() {
    assertThatThrownBy(() -> fromEnv(Map.of("AX_KAFKA_SECURITY_PROTOCOL", "TLS")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("AX_KAFKA_SECURITY_PROTOCOL=TLS");
  }

  /**
   * The configuration of a process whose environment is {@code env}: no system properties, no
   * overrides.
   */
  private static AxConfig fromEnv(Map<String, String> env) {
    return AxConfig.load(env, Map.of(), Map.of());
  }
}
