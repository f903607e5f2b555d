package dev.ax.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.embedded.ServerChoice.Source;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class ServerChoiceTest {

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(strings = {"  ", "false", "FALSE", " False "})
  void unsetBlankOrFalseEmbeds(String value) {
    assertThat(ServerChoice.useContainers(value)).isFalse();
    assertThat(ServerChoice.of(value, false, false))
        .isEqualTo(new ServerChoice(Source.EMBEDDED, Source.EMBEDDED));
  }

  @ParameterizedTest
  @ValueSource(strings = {"true", "TRUE", " True "})
  void trueInAnyCaseUsesContainers(String value) {
    assertThat(ServerChoice.useContainers(value)).isTrue();
    assertThat(ServerChoice.of(value, false, false))
        .isEqualTo(new ServerChoice(Source.CONTAINER, Source.CONTAINER));
  }

  @ParameterizedTest
  @ValueSource(strings = {"yes", "1", "on", "treu"})
  void anythingElseIsRejectedWithThePropertyAndTheValue(String value) {
    assertThatThrownBy(() -> ServerChoice.of(value, false, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ax.it.testcontainers")
        .hasMessageContaining("'" + value + "'");
  }

  @ParameterizedTest
  @CsvSource({
    "false, true,  false, EXTERNAL,  EMBEDDED",
    "false, false, true,  EMBEDDED,  EXTERNAL",
    "true,  true,  false, EXTERNAL,  CONTAINER",
    "true,  false, true,  CONTAINER, EXTERNAL",
    "true,  true,  true,  EXTERNAL,  EXTERNAL",
  })
  void anExternalServerWinsOverEitherOfTheOthers(
      String flag, boolean externalKafka, boolean externalDatabase, Source kafka, Source database) {
    assertThat(ServerChoice.of(flag, externalKafka, externalDatabase))
        .isEqualTo(new ServerChoice(kafka, database));
  }

  @Test
  void withoutTheFlagDockerIsNeverAsked() {
    AtomicInteger asked = new AtomicInteger();
    BooleanSupplier docker = countingDocker(asked, false);

    assertThat(ServerChoice.of(null, false, false).skipReason(docker)).isEmpty();
    assertThat(ServerChoice.of("false", true, false).skipReason(docker)).isEmpty();
    assertThat(asked).hasValue(0);
  }

  @Test
  void withTheFlagAndBothServersExternalDockerIsNeverAsked() {
    AtomicInteger asked = new AtomicInteger();
    ServerChoice choice = ServerChoice.of("true", true, true);

    assertThat(choice.needsDocker()).isFalse();
    assertThat(choice.skipReason(countingDocker(asked, false))).isEmpty();
    assertThat(asked).hasValue(0);
  }

  @Test
  void withTheFlagAndNoDockerTheTestsAreSkippedWithOneClearLine() {
    ServerChoice choice = ServerChoice.of("true", false, false);

    assertThat(choice.needsDocker()).isTrue();
    assertThat(choice.skipReason(() -> false))
        .contains("ax.it.testcontainers=true but no Docker engine is reachable: ITs skipped");
    assertThat(ServerChoice.NO_DOCKER).doesNotContain("\n");
  }

  @Test
  void withTheFlagAndDockerNothingIsSkipped() {
    AtomicInteger asked = new AtomicInteger();

    assertThat(ServerChoice.of("true", false, true).skipReason(countingDocker(asked, true)))
        .isEmpty();
    assertThat(asked).hasValue(1);
  }

  @Test
  void onlyEmbeddedServersNeedATemporaryDirectory() {
    assertThat(ServerChoice.of(null, false, true).needsTempDir()).isTrue();
    assertThat(ServerChoice.of(null, true, true).needsTempDir()).isFalse();
    assertThat(ServerChoice.of("true", false, false).needsTempDir()).isFalse();
  }

  private static BooleanSupplier countingDocker(AtomicInteger asked, boolean available) {
    return () -> {
      asked.incrementAndGet();
      return available;
    };
  }
}
