package dev.ax.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FreePortsTest {

  @Test
  void neverHandsOutAPortTwiceInOneJvm() {
    List<Integer> ports = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      ports.add(FreePorts.loopback());
    }
    ports.addAll(FreePorts.loopback(5));

    assertThat(ports).doesNotHaveDuplicates().hasSize(205).allMatch(p -> p > 0 && p < 65_536);
  }
}
