package dev.ax.common.stage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

class DispatchHoldTest {

  @Test
  void aNamespacesSwitchHoldsEveryGroupOfItAndNothingElse() {
    Switches.DispatchHold hold = new Switches.DispatchHold(false, Set.of("billing~*", "reports"));
    assertThat(hold.holds("billing~default")).isTrue();
    assertThat(hold.holds("billing~nightly")).isTrue();
    assertThat(hold.holds("reports")).isTrue();
    assertThat(hold.holds("shop~default")).isFalse();
    assertThat(hold.holds("default")).isFalse();
    assertThat(hold.holds("__retry")).isFalse();
  }

  @Test
  void theNamespaceWideNameOfAGroup() {
    assertThat(Switches.namespaceWide("billing~nightly")).isEqualTo("billing~*");
    assertThat(Switches.namespaceWide("nightly")).isNull();
    assertThat(Switches.namespaceWide("__overflow")).isNull();
  }
}
