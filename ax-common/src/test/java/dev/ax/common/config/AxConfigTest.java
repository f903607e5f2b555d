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

    assertThat(config.get(ConfigKeys.DEFAULT_TIMEOUT)).isEqualTo(Duration.ofSeconds(60));
    assertThat(config.get(ConfigKeys.TICKER_HORIZON)).isEqualTo(Duration.ofSeconds(10));
    assertThat(config.get(ConfigKeys.HTTP_ALLOWED_HOSTS)).isEmpty();
    assertThat(config.get(ConfigKeys.METRICS_BIND)).startsWith("127.0.0.1:");
  }

  @Test
  void overridesBeatSystemPropertiesBeatTheEnvironmentBeatTheFile(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("ax.properties");
    Files.writeString(file, "AX_DB_POOL_SIZE=3\nAX_DISPATCHER_THREADS=4\nAX_TOPIC_PREFIX=file.\n");
    Map<String, String> env =
        Map.of(
            "AX_CONFIG_FILE",
            file.toString(),
            "AX_DISPATCHER_THREADS",
            "5",
            "AX_TOPIC_PREFIX",
            "env.",
            "PATH",
            "/bin");
    Map<String, String> sys = Map.of("AX_TOPIC_PREFIX", "sys.", "java.version", "17");

    AxConfig config =
        AxConfig.load(env, sys, Map.of("AX_HTTP_ALLOWED_HOSTS", "a.example, *.b.example"));

    assertThat(config.get(ConfigKeys.DB_POOL_SIZE)).isEqualTo(3);
    assertThat(config.get(ConfigKeys.DISPATCHER_THREADS)).isEqualTo(5);
    assertThat(config.get(ConfigKeys.TOPIC_PREFIX)).isEqualTo("sys.");
    assertThat(config.get(ConfigKeys.HTTP_ALLOWED_HOSTS))
        .isEqualTo(List.of("a.example", "*.b.example"));
  }

  @Test
  void aBadValueStopsStartWithKeyAndValue() {
    assertThatThrownBy(() -> AxConfig.load(Map.of("AX_TICKER_HORIZON", "soon"), Map.of(), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("AX_TICKER_HORIZON=soon");
    assertThatThrownBy(
            () -> AxConfig.load(Map.of("AX_DISPATCHER_THREADS", "0"), Map.of(), Map.of()))
        .hasMessageContaining("AX_DISPATCHER_THREADS=0")
        .hasMessageContaining("1..4096");
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
                .get(ConfigKeys.METRICS_BIND))
        .isEqualTo("off");
  }

  @Test
  void aPasswordInsideTheJdbcUrlIsMaskedToo() {
    AxConfig config =
        AxConfig.load(
            Map.of("AX_JDBC_URL", "jdbc:mysql://db:3306/ax?user=ax&password=s3cret"),
            Map.of(),
            Map.of());

    assertThat(config.describe()).doesNotContain("s3cret").contains("password=****");
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

    assertThat(config.describe()).contains("AX_JDBC_PASSWORD=****").doesNotContain("hunter2");
    assertThat(config.get(ConfigKeys.JDBC_PASSWORD)).isEqualTo("hunter2");
  }

  @Test
  void durationsTakeUnits() {
    assertThat(ConfigKey.parseDuration("250ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(ConfigKey.parseDuration("5m")).isEqualTo(Duration.ofMinutes(5));
    assertThat(ConfigKey.parseDuration("3650d")).isEqualTo(Duration.ofDays(3650));
    assertThat(ConfigKey.parseDuration("PT2S")).isEqualTo(Duration.ofSeconds(2));
    assertThatThrownBy(() -> ConfigKey.parseDuration("5")).hasMessageContaining("not a duration");
  }

  @Test
  void everyKeyIsDocumented() throws Exception {
    String docs = Files.readString(Path.of("..", "docs", "CONFIGURATION.md"));

    for (ConfigKey<?> key : ConfigKeys.all()) {
      assertThat(docs)
          .as("docs/CONFIGURATION.md mentions %s", key.name())
          .contains("`" + key.name() + "`");
    }
  }
}
