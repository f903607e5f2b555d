package dev.ax.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** Which ready retries go now: the quota's rate and in-flight bound, and the batch size. */
class RetryPlannerTest {

  private static List<Long> ready(int count) {
    return LongStream.rangeClosed(1, count).boxed().toList();
  }

  @Test
  void takesTheOldestReadyFirstAsFarAsTheQuotaAllows() {
    // 1000/s banks at most 100 permits; after a second there are 100.
    RetryPlanner planner = new RetryPlanner(new RetryQuota(1000, 1_000_000, 0), 500);

    DispatchPlan plan = planner.plan(ready(150), 0, 1_000);

    assertThat(plan.batch()).isEqualTo(ready(100));
    assertThat(plan.heldBack()).isEqualTo(50);
  }

  @Test
  void neverMoreThanOneBatch() {
    RetryPlanner planner = new RetryPlanner(new RetryQuota(100_000, 1_000_000, 0), 500);

    DispatchPlan plan = planner.plan(ready(2_000), 0, 1_000);

    assertThat(plan.batch()).hasSize(500);
    assertThat(plan.heldBack()).isEqualTo(1_500);
  }

  @Test
  void holdsEverythingWhileTheInFlightBoundIsReached() {
    RetryPlanner planner = new RetryPlanner(new RetryQuota(1000, 10, 0), 500);

    assertThat(planner.plan(ready(5), 10, 1_000).batch()).isEmpty();
    assertThat(planner.plan(ready(5), 8, 1_000).batch()).containsExactly(1L, 2L);
  }

  @Test
  void theQuotaIsSpentAcrossPlans() {
    RetryPlanner planner = new RetryPlanner(new RetryQuota(100, 1_000_000, 0), 500);

    assertThat(planner.plan(ready(50), 0, 1_000).batch()).hasSize(10);
    assertThat(planner.plan(ready(50), 0, 1_000).batch()).as("nothing left this ms").isEmpty();
    assertThat(planner.plan(ready(50), 0, 1_050).batch()).hasSize(5);
  }

  @Test
  void aBatchMustHoldSomething() {
    assertThatThrownBy(() -> new RetryPlanner(new RetryQuota(1, 1, 0), 0))
        .hasMessageContaining("maxBatch must be positive: 0");
  }
}
