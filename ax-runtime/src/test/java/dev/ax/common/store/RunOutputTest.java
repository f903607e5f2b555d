package dev.ax.common.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The bound of a stored run output: cut with a marker, never half a character. */
class RunOutputTest {

  @Test
  void aTextThatFitsIsKeptAsItIs() {
    String text = "x".repeat(RunOutput.MAX_CHARS);

    assertThat(RunOutput.bounded(text, RunOutput.MAX_CHARS)).isSameAs(text);
    assertThat(RunOutput.bounded(null, 10)).isNull();
  }

  @Test
  void aLongerTextIsCutToTheBoundWithTheMarker() {
    String cut = RunOutput.bounded("y".repeat(10_000), RunOutput.MAX_CHARS);

    assertThat(cut).hasSize(RunOutput.MAX_CHARS).endsWith(RunOutput.CUT_MARKER).startsWith("yyy");
    assertThat(new RunOutput(1L, cut).text()).isEqualTo(cut);
  }

  @Test
  void aCutNeverSplitsASurrogatePair() {
    int end = 20 - RunOutput.CUT_MARKER.length();
    String text = "a".repeat(end - 1) + "\uD83D\uDE00" + "a tail long enough to cut";

    String cut = RunOutput.bounded(text, 20);

    assertThat(cut).isEqualTo("a".repeat(end - 1) + RunOutput.CUT_MARKER);
  }

  @Test
  void aStoredOutputIsAtMostTheBound() {
    assertThatThrownBy(() -> new RunOutput(1L, "z".repeat(RunOutput.MAX_CHARS + 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(String.valueOf(RunOutput.MAX_CHARS + 1));
  }
}
