package dev.ax.common.logging;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LogBudgetTest {

  private final AtomicLong nanos = new AtomicLong(5_000_000_000L);
  private final LogBudget budget =
      new LogBudget("widget(s)", "ax_widgets_total", 3, Duration.ofSeconds(10), nanos::get);

  @Test
  void allowsItsLinesPerWindowThenHoldsBackAndSaysHowMany() {
    for (int i = 0; i < 3; i++) {
      assertThat(budget.take()).isEqualTo(new LogBudget.Permit(true, 0));
    }
    for (int i = 0; i < 1_000; i++) {
      assertThat(budget.take().allowed()).as("line %d of a flood", i).isFalse();
    }
    nanos.addAndGet(Duration.ofSeconds(10).toNanos() - 1);
    assertThat(budget.take().allowed()).as("the window is not over").isFalse();

    nanos.addAndGet(1);
    LogBudget.Permit afterFlood = budget.take();
    assertThat(afterFlood).isEqualTo(new LogBudget.Permit(true, 1_001));
    assertThat(budget.heldBack(afterFlood))
        .contains(
            "1001 more widget(s) not logged (at most 3 a 10 s): each is counted in"
                + " ax_widgets_total");
    assertThat(budget.take()).as("counted once").isEqualTo(new LogBudget.Permit(true, 0));
  }
}
