package dev.ax.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MachineCpuTest {

  @Test
  void readsIdlePlusIowaitAndStealFromTheAggregateLine() {
    assertThat(MachineCpu.parse("cpu  5704040 0 741926 4514090 55885 0 108592 228050 0 0"))
        .contains(new MachineCpu.Reading(4514090 + 55885, 228050));
  }

  @Test
  void aPerCpuLineOrAShortLineIsNotTheAggregate() {
    assertThat(MachineCpu.parse("cpu0 2832106 0 364336 2309888 17735 0 39339 110949 0 0"))
        .isEmpty();
    assertThat(MachineCpu.parse("cpu 1 2 3 4")).isEmpty();
    assertThat(MachineCpu.parse("cpu a b c d e f g h")).isEmpty();
  }
}
