package dev.ax.dispatcher.claim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class HoldBudgetTest {

  private static final int ALL = Integer.MAX_VALUE;
  private final HoldBudget budget = new HoldBudget(Duration.ofSeconds(1));

  @Test
  void aGroupKeepsEverythingUntilItHasBeenBackloggedForTheHoldTime() {
    budget.drained("slow", 52, true, 0);
    assertThat(budget.keep("slow", 0)).isEqualTo(ALL);
    budget.drained("slow", 0, true, 500);
    assertThat(budget.keep("slow", 999)).isEqualTo(ALL);
  }

  @Test
  void aStalledGroupKeepsWhatItsPoolStartedInTheLastHoldTimeAndAtLeastOne() {
    budget.drained("slow", 52, true, 0);
    budget.drained("slow", 2, true, 1_200);
    budget.drained("slow", 0, true, 1_500);
    // The 52 of the first fill are over a second old: only the 2 started at 1.2 s count.
    assertThat(budget.keep("slow", 1_500)).isEqualTo(2);
    assertThat(budget.keep("slow", 2_300)).as("nothing started since 1.3 s").isEqualTo(1);
  }

  @Test
  void aBurstThatItsPoolWorksOffQuicklyKeepsItsBacklog() {
    for (long ms = 0; ms <= 3_000; ms += 20) {
      budget.drained("noop", 100, true, ms); // 5,000 started per second, always backlogged
    }
    // About a second's worth (the current tenth of a second has only just begun).
    assertThat(budget.keep("noop", 3_000)).isBetween(4_500, 5_000);
  }

  @Test
  void aPassThatLeavesNothingHeldEndsTheBacklog() {
    budget.drained("g", 10, true, 0);
    budget.drained("g", 10, false, 900);
    budget.drained("g", 0, true, 1_000);
    budget.drained("g", 3, true, 1_500);
    assertThat(budget.keep("g", 1_900)).as("backlogged again only since 1 s").isEqualTo(ALL);
    assertThat(budget.keep("g", 2_000)).isEqualTo(3);
  }

  @Test
  void aGroupNeverDrainedKeepsEverything() {
    assertThat(budget.keep("unknown", 10_000)).isEqualTo(ALL);
  }

  @Test
  void sheddingIsAnnouncedOncePerBacklog() {
    budget.drained("g", 0, true, 0);
    assertThat(budget.startsShedding("g")).isTrue();
    assertThat(budget.startsShedding("g")).isFalse();
    budget.drained("g", 1, false, 100);
    budget.drained("g", 0, true, 200);
    assertThat(budget.startsShedding("g")).isTrue();
  }

  @Test
  void aHoldTimeThatIsNotPositiveIsRefused() {
    assertThatThrownBy(() -> new HoldBudget(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT0S");
  }
}
