package dev.ax.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.model.InstanceStatus;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class BenchCollectorTest {

  private final BenchPlan plan =
      new BenchPlan("bench-x1", 3, 1_000, Duration.ofSeconds(1), Duration.ofSeconds(3));
  private final BenchCollector collector = new BenchCollector(plan);

  private TaskCompletedEvent event(
      String taskId, long claimedAtMs, long startedAtMs, InstanceStatus status) {
    long dueAtMs = 2_000;
    return new TaskCompletedEvent(
        1,
        taskId,
        taskId + "@" + dueAtMs,
        1,
        status,
        dueAtMs,
        claimedAtMs,
        startedAtMs,
        startedAtMs + 5,
        5,
        claimedAtMs - dueAtMs,
        "trace",
        null,
        "node-1",
        status,
        null,
        null,
        null);
  }

  @Test
  void keepsTheFirstEventOfEachInstanceAndCountsTheRestAsDuplicates() {
    collector.accept(event(plan.taskId(1), 2_010, 2_012, InstanceStatus.SUCCESS));
    collector.accept(event(plan.taskId(1), 2_500, 2_501, InstanceStatus.FAILED));
    collector.accept(event(plan.taskId(0), 2_020, 2_021, InstanceStatus.SUCCESS));

    assertThat(collector.completed()).isEqualTo(2);
    assertThat(collector.allCompleted()).isFalse();
    assertThat(collector.duplicateEvents()).isEqualTo(1);
    assertThat(collector.firstCompletions())
        .containsExactly(
            new BenchCollector.Completion(2_000, 2_020, 2_021, 2_026, InstanceStatus.SUCCESS),
            new BenchCollector.Completion(2_000, 2_010, 2_012, 2_017, InstanceStatus.SUCCESS));
  }

  @Test
  void eventsOfOtherRunsOrOutsideThePlanAreForeign() {
    collector.accept(event("bench-x2-0000001", 2_010, 2_012, InstanceStatus.SUCCESS));
    collector.accept(event("bench-x1-0000003", 2_010, 2_012, InstanceStatus.SUCCESS));
    collector.accept(event("bench-x1w1-0000001", 2_010, 2_012, InstanceStatus.SUCCESS));
    collector.accept(event("bench-x1-", 2_010, 2_012, InstanceStatus.SUCCESS));

    assertThat(collector.completed()).isZero();
    assertThat(collector.foreignEvents()).isEqualTo(4);
  }

  @Test
  void allCompletedOnceEveryTaskHasAnEvent() {
    for (int i = 0; i < plan.tasks(); i++) {
      collector.accept(event(plan.taskId(i), 2_010, 2_012, InstanceStatus.SUCCESS));
    }

    assertThat(collector.allCompleted()).isTrue();
    assertThat(collector.duplicateEvents()).isZero();
  }
}
