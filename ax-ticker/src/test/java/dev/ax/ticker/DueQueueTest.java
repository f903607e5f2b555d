package dev.ax.ticker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.common.store.DueInstance;
import java.util.List;
import org.junit.jupiter.api.Test;

class DueQueueTest {

  private static DueInstance instance(String id, long dueAtMs) {
    return new DueInstance(id, "task", dueAtMs, "trace", 0);
  }

  @Test
  void firesOnlyWhatIsDueOldestFirst() {
    DueQueue queue = new DueQueue(100);
    queue.offer(instance("c", 300));
    queue.offer(instance("a", 100));
    queue.offer(instance("b", 200));
    queue.drainHandOff();

    assertThat(queue.takeDue(99, 10)).isEmpty();
    assertThat(queue.nextDueAtMs()).isEqualTo(100);
    assertThat(queue.takeDue(250, 10))
        .extracting(DueInstance::instanceId)
        .containsExactly("a", "b");
    assertThat(queue.takeDue(1000, 10)).extracting(DueInstance::instanceId).containsExactly("c");
    assertThat(queue.nextDueAtMs()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void holdsEachInstanceOnceUntilReleased() {
    DueQueue queue = new DueQueue(100);
    queue.offer(instance("a", 100));
    queue.offer(instance("a", 100));
    queue.drainHandOff();

    List<DueInstance> due = queue.takeDue(100, 10);
    queue.offer(instance("a", 100)); // a load racing the firing
    queue.drainHandOff();

    assertThat(due).hasSize(1);
    assertThat(queue.takeDue(100, 10)).as("still held while firing").isEmpty();
    queue.release(due);
    queue.offer(instance("a", 100));
    queue.drainHandOff();
    assertThat(queue.takeDue(100, 10)).as("offered again after release").hasSize(1);
  }

  @Test
  void boundsWhatItHoldsAndTheBatch() {
    DueQueue queue = new DueQueue(2);
    for (int i = 0; i < 5; i++) {
      queue.offer(instance("i" + i, i));
    }
    queue.drainHandOff();

    assertThat(queue.size()).isEqualTo(2);
    assertThat(queue.takeDue(10, 1)).hasSize(1);
  }

  @Test
  void putBackKeepsFailedFiringsForTheNextTry() {
    DueQueue queue = new DueQueue(10);
    queue.offer(instance("a", 1));
    queue.drainHandOff();
    List<DueInstance> due = queue.takeDue(5, 10);

    queue.putBack(due);

    assertThat(queue.takeDue(5, 10)).extracting(DueInstance::instanceId).containsExactly("a");
  }

  @Test
  void rejectsANonPositiveBound() {
    assertThatThrownBy(() -> new DueQueue(0)).hasMessageContaining("maxHeld must be positive: 0");
  }
}
