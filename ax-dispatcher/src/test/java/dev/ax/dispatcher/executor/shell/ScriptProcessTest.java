package dev.ax.dispatcher.executor.shell;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.common.time.SettableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ScriptProcessTest {

  private final SettableClock clock = new SettableClock(Instant.EPOCH);

  @Test
  void aNegativeOutputSizeOrGraceIsRefusedWithTheValue() {
    assertThatThrownBy(() -> new ScriptProcess(-1, Duration.ofSeconds(5), clock))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxOutputBytes must not be negative: -1");
    assertThatThrownBy(() -> new ScriptProcess(1024, Duration.ofMillis(-1), clock))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("killGrace must not be negative: PT-0.001S");
  }

  @Test
  void zeroKeepsNoOutputAndKillsAtOnce() {
    assertThatCode(() -> new ScriptProcess(0, Duration.ZERO, clock)).doesNotThrowAnyException();
  }
}
