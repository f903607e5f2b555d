package dev.ax.api.write;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.Namespace;
import org.junit.jupiter.api.Test;

class SwitchBoardNamesTest {

  @Test
  void aNamespacesOwnSwitchesAreKnownAndNamedAsItsOwn() {
    assertThat(SwitchBoard.problem("intake.billing", "off")).isNull();
    assertThat(SwitchBoard.problem("dispatch.billing~*", "off")).isNull();
    assertThat(SwitchBoard.problem("dispatch.billing~nightly", "off")).isNull();
    assertThat(SwitchBoard.problem("dispatch.nightly", "off")).isNull();
    assertThat(SwitchBoard.problem("dispatch.*", "off")).contains("unknown switch");
    assertThat(SwitchBoard.problem("intake.Billing", "off")).contains("unknown switch");
    assertThat(SwitchBoard.namespaceOf("intake.billing")).contains(new Namespace("billing"));
    assertThat(SwitchBoard.namespaceOf("dispatch.billing~*")).contains(new Namespace("billing"));
    assertThat(SwitchBoard.namespaceOf("dispatch.billing~nightly"))
        .contains(new Namespace("billing"));
    assertThat(SwitchBoard.namespaceOf("dispatch.nightly")).isEmpty();
    assertThat(SwitchBoard.namespaceOf("intake")).isEmpty();
  }
}
