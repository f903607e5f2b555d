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
    AxConfig config = AxConfig.load(Map.of(), Map.of(), Map.of());

    assertThat(config.get(CommonKeys.SHUTDOWN_GRACE)).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.get(CommonKeys.SWITCH_POLL)).isEqualTo(Duration.ofSeconds(2));
    assertThat(config.get(CommonKeys.KAFKA_BOOTSTRAP)).isEmpty();
    assertThat(config.get(CommonKeys.METRICS_BIND)).startsWith("127.0.0.1:");
  }

  @Test
  void overridesBeatSystemPropertiesBeatTheEnvironmentBeatTheFile(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("ax.properties");
    Files.writeString(file, "AX_DB_POOL_SIZE=3\nAX_TOPIC_PARTITIONS=4\nAX_TOPIC_PREFIX=file.\n");
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
    assertThatThrownBy(() -> AxConfig.load(Map.of("AX_SWITCH_POLL", "soon"), Map.of(), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("AX_SWITCH_POLL=soon");
    assertThatThrownBy(() -> AxConfig.load(Map.of("AX_DB_POOL_SIZE", "0"), Map.of(), Map.of()))
        .hasMessageContaining("AX_DB_POOL_SIZE=0")
        .hasMessageContaining("1..500");
  }

  @Test
  void prefixesAndAddressesAreCheckedAtStart() {
    assertThatThrownBy(() -> AxConfig.load(Map.of("AX_TOPIC_PREFIX", "a b"), Map.of(), Map.of()))
        .hasMessageContaining("AX_TOPIC_PREFIX=a b");
    assertThatThrownBy(
            () -> AxConfig.load(Map.of("AX_METRICS_BIND", "localhost:abc"), Map.of(), Map.of()))
        .hasMessageContaining("AX_METRICS_BIND=localhost:abc")
        .hasMessageContaining("host:port or off");
    assertThat(
            AxConfig.load(Map.of("AX_METRICS_BIND", "off"), Map.of(), Map.of())
                .get(CommonKeys.METRICS_BIND))
        .isEqualTo("off");
  }

  @Test
  void aPasswordInsideTheJdbcUrlIsMaskedToo() {
    AxConfig config =
        AxConfig.load(
            Map.of("AX_JDBC_URL", "jdbc:mysql://db:3306/ax?user=ax&password=s3cret"),
            Map.of(),
            Map.of());

    assertThat(config.describe(KnownKeys.all())).doesNotContain("s3cret").contains("password=****");
  }

  @Test
  void anUnknownKeyStopsStart() {
    assertThatThrownBy(() -> AxConfig.load(Map.of("AX_TICKR_HORIZON", "5s"), Map.of(), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("unknown configuration key AX_TICKR_HORIZON=5s");
  }

  @Test
  void secretsAreNeverPrinted() {
    AxConfig config = AxConfig.load(Map.of("AX_JDBC_PASSWORD", "hunter2"), Map.of(), Map.of());

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
    AxConfig config = AxConfig.load(Map.of("AX_NODE_ID", "n1"), Map.of(), Map.of());

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
    Path file = dir.resolve("password");
    Files.writeString(file, "s3cret\r\n");

    AxConfig config =
        AxConfig.load(Map.of("AX_JDBC_PASSWORD_FILE", file.toString()), Map.of(), Map.of());

    assertThat(config.get(CommonKeys.JDBC_PASSWORD)).isEqualTo("s3cret");
    assertThat(config.describe(java.util.List.of(CommonKeys.JDBC_PASSWORD)))
        .isEqualTo("AX_JDBC_PASSWORD=****");
  }

  @Test
  void aSecretFileIsRefusedWithItsPathNeverItsContent(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("password");
    Files.writeString(file, "s3cret");

    assertThatThrownBy(
            () ->
                AxConfig.load(
                    Map.of("AX_JDBC_PASSWORD_FILE", file.toString(), "AX_JDBC_PASSWORD", "x"),
                    Map.of(),
                    Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessage("both AX_JDBC_PASSWORD and AX_JDBC_PASSWORD_FILE are set: set one of them");
    assertThatThrownBy(
            () ->
                AxConfig.load(
                    Map.of("AX_JDBC_PASSWORD_FILE", dir.resolve("missing").toString()),
                    Map.of(),
                    Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("cannot read AX_JDBC_PASSWORD_FILE=" + dir.resolve("missing"));
    Path huge = dir.resolve("huge");
    Files.write(huge, new byte[AxConfig.MAX_SECRET_FILE_BYTES + 1]);
    assertThatThrownBy(
            () ->
                AxConfig.load(Map.of("AX_JDBC_PASSWORD_FILE", huge.toString()), Map.of(), Map.of()))
        .hasMessageContaining("is larger than");
  }

  @Test
  void onlySecretsHaveFileKeys(@TempDir Path dir) {
    assertThatThrownBy(
            () ->
                AxConfig.load(
                    Map.of("AX_JDBC_USER_FILE", dir.resolve("user").toString()),
                    Map.of(),
                    Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("unknown configuration key AX_JDBC_USER_FILE");
  }

  @Test
  void kafkaClientSettingsComeFromTheFileAndTheKeysWin(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("client.properties");
    Files.writeString(
        file, "security.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nrequest.timeout.ms=5000\n");

    AxConfig config =
        AxConfig.load(
            Map.of(
                "AX_KAFKA_PROPERTIES_FILE", file.toString(),
                "AX_KAFKA_SASL_MECHANISM", "SCRAM-SHA-512",
                "AX_KAFKA_SASL_JAAS_CONFIG", "ScramLoginModule required password=\"p\";"),
            Map.of(),
            Map.of());

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
    Path file = dir.resolve("client.properties");
    Files.writeString(file, "bootstrap.servers=elsewhere:9092\n");

    assertThatThrownBy(
            () ->
                KafkaClientSettings.of(
                    AxConfig.load(
                        Map.of("AX_KAFKA_PROPERTIES_FILE", file.toString()), Map.of(), Map.of())))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("sets bootstrap.servers");
  }

  @Test
  void theKafkaSecurityKeysAreChecked() {
    assertThatThrownBy(
            () -> AxConfig.load(Map.of("AX_KAFKA_SECURITY_PROTOCOL", "TLS"), Map.of(), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("AX_KAFKA_SECURITY_PROTOCOL=TLS");
  }
}
