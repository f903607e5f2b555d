package dev.ax.api.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.common.config.AxConfig;
import dev.ax.common.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ApiSettingsTest {

  @Test
  void theDefaultIsLoopbackWithoutTokens() {
    ApiSettings settings =
        ApiSettings.from(AxConfig.load(Map.of(), Map.of(), Map.of())).orElseThrow();
    assertThat(settings.host()).isEqualTo("127.0.0.1");
    assertThat(settings.port()).isEqualTo(8480);
    assertThat(settings.tokens()).isEmpty();
  }

  @Test
  void offServesNone() {
    assertThat(
            ApiSettings.from(AxConfig.load(Map.of(), Map.of(), Map.of("AX_CONSOLE_BIND", "off"))))
        .isEmpty();
  }

  @Test
  void aBindBeyondLoopbackWithoutTokensRefusesToStart() {
    assertThatThrownBy(
            () ->
                ApiSettings.from(
                    AxConfig.load(Map.of(), Map.of(), Map.of("AX_CONSOLE_BIND", "0.0.0.0:8480"))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("is not a loopback address")
        .hasMessageContaining("AX_CONSOLE_TOKENS_FILE");
  }

  @Test
  void aBindBeyondLoopbackWithTokensIsAllowed(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("tokens");
    Files.writeString(file, "reader-token-0123456789abcdef ops read\n");
    ApiSettings settings =
        ApiSettings.from(
                AxConfig.load(
                    Map.of(),
                    Map.of(),
                    Map.of(
                        "AX_CONSOLE_BIND", "[::]:9000", "AX_CONSOLE_TOKENS_FILE", file.toString())))
            .orElseThrow();
    assertThat(settings.host()).isEqualTo("::");
    assertThat(settings.port()).isEqualTo(9000);
    assertThat(settings.tokens().map(ApiTokens::size)).isEqualTo(Optional.of(1));
  }
}
