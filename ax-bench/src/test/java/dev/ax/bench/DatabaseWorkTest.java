package dev.ax.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class DatabaseWorkTest {

  @Test
  void theWorkBetweenTwoReadingsIsDividedByWhatItServed() {
    DatabaseWork before = DatabaseWork.of(Map.of("Com_update", 100L, "Innodb_rows_read", 5L));
    DatabaseWork after = DatabaseWork.of(Map.of("Com_update", 400L, "Innodb_rows_read", 1_005L));

    DatabaseWork during = after.since(before);

    assertThat(during.get("Com_update")).isEqualTo(300);
    assertThat(during.get("Com_insert")).as("a counter neither reading had").isZero();
    assertThat(during.perUnit(100))
        .contains("Com_update=3.00")
        .contains("Innodb_rows_read=10.00")
        .startsWith("Com_select=0.00 ");
  }

  @Test
  void nothingServedPrintsNoRatio() {
    assertThat(DatabaseWork.none().perUnit(0)).contains("Com_update=-").doesNotContain("NaN");
  }
}
