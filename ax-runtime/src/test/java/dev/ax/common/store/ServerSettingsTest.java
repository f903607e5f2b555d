package dev.ax.common.store;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ServerSettingsTest {

  @Test
  void interleavedAutoincLocksNeedNoAdvice() {
    assertThat(ServerSettings.adviceForAutoincLockMode(2)).isEmpty();
  }

  @Test
  void tableLevelAutoincLocksAreNamedWithTheFix() {
    for (int mode : new int[] {0, 1}) {
      assertThat(ServerSettings.adviceForAutoincLockMode(mode))
          .hasValueSatisfying(
              advice ->
                  assertThat(advice)
                      .contains("innodb_autoinc_lock_mode=" + mode)
                      .contains("set innodb_autoinc_lock_mode=2"));
    }
  }
}
