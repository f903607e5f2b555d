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
}
