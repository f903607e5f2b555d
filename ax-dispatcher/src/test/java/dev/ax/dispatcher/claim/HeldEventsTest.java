package dev.ax.dispatcher.claim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.contract.TaskDueEvent;
import dev.ax.common.testing.TestTasks;
import org.junit.jupiter.api.Test;

class HeldEventsTest {

  private final HeldEvents held = new HeldEvents();

  private static TaskDueEvent due(String taskId, long dueAtMs) {
    return TestTasks.dueEvent(taskId, taskId + "@" + dueAtMs, dueAtMs, 1, dueAtMs, "t", "g");
  }

  @Test
  void keepingTheOldestReturnsTheLaterDueAndCountsThemOut() {
    held.add("slow", due("c", 30));
    held.add("slow", due("a", 10));
    held.add("slow", due("d", 40));
    held.add("slow", due("b", 20));
    held.add("fast", due("x", 5));

    assertThat(held.keepOldest("slow", 1))
        .extracting(TaskDueEvent::taskId)
        .containsExactly("b", "c", "d");
    assertThat(held.size()).isEqualTo(2);
    assertThat(held.size("slow")).isEqualTo(1);
    assertThat(held.take("slow", 10)).extracting(TaskDueEvent::taskId).containsExactly("a");
    assertThat(held.size("fast")).isEqualTo(1);
  }

  @Test
  void keepingAtLeastAsManyAsHeldLeavesNothing() {
    held.add("g", due("a", 1));
    assertThat(held.keepOldest("g", 1)).isEmpty();
    assertThat(held.keepOldest("none", 0)).isEmpty();
    assertThat(held.size()).isEqualTo(1);
  }
}
