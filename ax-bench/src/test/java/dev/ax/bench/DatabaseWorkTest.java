package dev.ax.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class DatabaseWorkTest {

  @Test
  void theWorkBetweenTwoReadingsIsDividedByWhatItServed() {
    DatabaseWork before = DatabaseWork.of(Map.of("Handler_update", 100L, "Handler_read_next", 5L));
    DatabaseWork after =
        DatabaseWork.of(Map.of("Handler_update", 400L, "Handler_read_next", 1_005L));

    DatabaseWork during = after.since(before);

    assertThat(during.get("Handler_update")).isEqualTo(300);
    assertThat(during.get("Handler_write")).as("a counter neither reading had").isZero();
    assertThat(during.perUnit(100))
        .contains("Handler_update=3.00")
        .contains("Handler_read_next=10.00")
        .startsWith("Com_stmt_execute=0.00 ");
  }

  @Test
  void nothingServedPrintsNoRatio() {
    assertThat(DatabaseWork.none().perUnit(0)).contains("Handler_update=-").doesNotContain("NaN");
  }
}
