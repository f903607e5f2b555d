package dev.ax.common.contract;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class EchoTest {

  @Test
  void quotesAShortValueAsItIs() {
    assertThat(Echo.of("abc")).isEqualTo("'abc'");
    assertThat(Echo.of(null)).isEqualTo("null");
  }

  @Test
  void cutsALongValueAndSaysHowLongItWas() {
    String echoed = Echo.of("x".repeat(1_000_000));

    assertThat(echoed)
        .startsWith("'" + "x".repeat(Echo.MAX_CHARS))
        .endsWith("(1000000 characters)");
    assertThat(echoed.length()).isLessThan(Echo.MAX_CHARS + 40);
  }

  @Test
  void showsControlCharactersSoAReasonStaysOneLineAndStillCaps() {
    assertThat(Echo.of("a\nb\r")).isEqualTo("'a\\u000ab\\u000d'");
    assertThat(Echo.cut("\n".repeat(10_000)).length()).isLessThan(Echo.MAX_CHARS + 40);
  }

  @Test
  void neverLeavesHalfASurrogatePair() {
    String emoji = "\uD83D\uDE00";
    String echoed = Echo.cut("a" + emoji.repeat(500));

    assertThat(echoed.substring(0, echoed.indexOf("..."))).doesNotEndWith("\uD83D");
    assertThat(Character.isHighSurrogate(echoed.charAt(echoed.indexOf("...") - 1))).isFalse();
  }
}
