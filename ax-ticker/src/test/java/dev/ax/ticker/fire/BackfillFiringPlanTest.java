package dev.ax.ticker.fire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.ConcurrencyPolicy;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.MisfirePolicy;
import dev.ax.common.model.Trigger;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.StoredTask;
import dev.ax.common.testing.TestTasks;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The planner's one rule for a backfill's firings ({@code taskId@backfill:<slot>}): they fire as
 * their creator made them, whatever the task's own overlap policy and however late their slot, and
 * extend no chain.
 */
class BackfillFiringPlanTest {

  private static final long T0 = Instant.parse("2026-06-01T12:00:00Z").toEpochMilli();

  private final FirePlanner planner = new FirePlanner(new FireTimes(), Duration.ofSeconds(5));

  @Test
  void aBackfillFiringOfABusyNonConcurrentTaskFiresAndChainsNothing() {
    StoredTask task =
        TestTasks.stored(
            TestTasks.noop(
                "nc",
                new Trigger.Cron("* * * * * ?", ZoneOffset.UTC),
                MisfirePolicy.SKIP,
                MisfirePolicy.DEFAULT_MAX_FIRE_ALL,
                false,
                ConcurrencyPolicy.SKIP));
    long slotAnHourAgo = T0 - 3_600_000;
    DueInstance firing =
        new DueInstance(InstanceIds.backfillOf("nc", slotAnHourAgo), "nc", T0, "trace", 7, 1);

    FirePlan plan = planner.plan(List.of(firing), Map.of("nc", task), Set.of("nc"), T0 + 10);

    assertThat(plan.dispatch()).containsExactly(7L);
    assertThat(plan.skip()).isEmpty();
    assertThat(plan.delay()).isEmpty();
    assertThat(plan.successorsOf(firing.instanceId())).isEmpty();
    assertThat(plan.chainsEnded()).isEmpty();
  }
}
