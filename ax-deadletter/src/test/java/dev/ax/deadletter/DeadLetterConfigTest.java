package dev.ax.deadletter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.common.config.AxConfig;
import dev.ax.common.config.ConfigException;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeadLetterConfigTest {

  @Test
  void noUrlMeansNoWebhook() {
    assertThat(DeadLetterConfig.from(AxConfig.load(Map.of(), Map.of(), Map.of())).webhook())
        .isEmpty();
  }

  @Test
  void theUrlIsReadButNeverShown() {
    DeadLetterConfig config =
        DeadLetterConfig.from(
            AxConfig.load(
                Map.of("AX_DEADLETTER_WEBHOOK_URL", "https://hooks.example/t0ken"),
                Map.of(),
                Map.of()));

    assertThat(config.webhook()).contains(URI.create("https://hooks.example/t0ken"));
    assertThat(config.toString()).doesNotContain("t0ken");
  }

  @Test
  void aUrlThatIsNotHttpStopsStartWithoutShowingIt() {
    assertThatThrownBy(
            () ->
                DeadLetterConfig.from(
                    AxConfig.load(
                        Map.of("AX_DEADLETTER_WEBHOOK_URL", "ftp://s3cret@host/x"),
                        Map.of(),
                        Map.of())))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("AX_DEADLETTER_WEBHOOK_URL")
        .hasMessageNotContaining("s3cret");
  }

  @Test
  void theRelayIsOffByDefaultAndReadsItsReceiversWithoutShowingThem() {
    assertThat(DeadLetterConfig.from(AxConfig.load(Map.of(), Map.of(), Map.of())).relay().bind())
        .isEmpty();
    DeadLetterConfig config =
        DeadLetterConfig.from(
            AxConfig.load(
                Map.of(
                    "AX_ALERT_RELAY_BIND", "127.0.0.1:9095",
                    "AX_ALERT_RELAY_RECEIVERS",
                        "page=wecom:https://robot.example/send?key=k3y, ticket=SLACK:https://hooks.example/s3cret",
                    "AX_ALERT_RELAY_TOKEN", "a-token-of-20-chars!",
                    "AX_DEADLETTER_WEBHOOK_URL", "https://hooks.example/dl-t0ken",
                    "AX_DEADLETTER_WEBHOOK_FORMAT", "dingtalk"),
                Map.of(),
                Map.of()));
    AlertRelayConfig relay = config.relay();
    assertThat(relay.bind()).hasValueSatisfying(b -> assertThat(b.getPort()).isEqualTo(9095));
    assertThat(relay.target("page").orElseThrow().format()).isEqualTo(AlertFormat.WECOM);
    assertThat(relay.target("ticket").orElseThrow().url())
        .isEqualTo(URI.create("https://hooks.example/s3cret"));
    // A receiver not listed goes to the dead-letter webhook, in its format.
    assertThat(relay.target("other").orElseThrow().format()).isEqualTo(AlertFormat.DINGTALK);
    assertThat(relay.maxAlerts()).isEqualTo(10);
    assertThat(config.toString()).doesNotContain("k3y", "s3cret", "t0ken", "a-token");
  }

  @Test
  void aBadRelaySettingStopsStartNamingTheKeyNotTheSecret() {
    for (Map<String, String> env :
        java.util.List.of(
            Map.of("AX_ALERT_RELAY_BIND", "nowhere"),
            Map.of("AX_ALERT_RELAY_RECEIVERS", "page=s3cret"),
            Map.of("AX_ALERT_RELAY_RECEIVERS", "page=teams:https://x.example/s3cret"),
            Map.of("AX_ALERT_RELAY_RECEIVERS", "page=slack:ftp://x.example/s3cret"),
            Map.of("AX_ALERT_RELAY_TOKEN", "s3cret"))) {
      assertThatThrownBy(() -> DeadLetterConfig.from(AxConfig.load(env, Map.of(), Map.of())))
          .as("%s", env.keySet())
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining(env.keySet().iterator().next())
          .hasMessageNotContaining("s3cret");
    }
  }
}
