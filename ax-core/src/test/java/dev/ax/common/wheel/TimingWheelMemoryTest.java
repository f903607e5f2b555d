package dev.ax.common.wheel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The node pool and index: bounded growth, reuse across cycles, the 64 MB per million target. */
class TimingWheelMemoryTest {

  private static final long MB = 1L << 20;

  @Test
  void aMillionPendingFitIn64MegabytesWithTheDuplicateIndex() {
    int pending = 1_000_000;
    TimingWheel wheel = new TimingWheel(pending, 0);
    SplittableRandom random = new SplittableRandom(1);
    for (long id = 0; id < pending; id++) {
      assertThat(wheel.add(id, random.nextInt(16), 1 + random.nextLong(3_600_000)))
          .isEqualTo(AddResult.ADDED);
    }

    long bytes = wheel.estimatedHeapBytes();
    assertThat(bytes).isLessThanOrEqualTo(64 * MB);
    assertThat(bytes / pending).as("bytes per pending instance").isLessThan(48);
    assertThat(wheel.add(pending, 0, 10)).isEqualTo(AddResult.FULL);

    long[] count = {0};
    long previousDueAtMs = 0;
    for (long nowMs = 0; nowMs <= 3_600_000; nowMs += 1_000) {
      wheel.advanceTo(nowMs, (groupId, dueAtMs, ids, n) -> count[0] += n);
    }
    assertThat(count[0]).isEqualTo(pending);
    assertThat(wheel.isEmpty()).isTrue();
    assertThat(previousDueAtMs).isZero();
  }

  @Test
  void nodesAndIndexSlotsAreReusedOverManyCycles() {
    TimingWheel wheel = new TimingWheel(10, 64, 100_000, 0);
    SplittableRandom random = new SplittableRandom(2);
    long id = 0;
    long nowMs = 0;
    int nodeCapacity = 0;
    int indexCapacity = 0;
    long[] fired = {0};
    for (int cycle = 0; cycle < 200; cycle++) {
      for (int i = 0; i < 5_000; i++) {
        wheel.add(id++, random.nextInt(8), nowMs + 1 + random.nextLong(10_000));
      }
      for (int step = 0; step < 100; step++) {
        nowMs += 100;
        wheel.advanceTo(nowMs, 700, (groupId, dueAtMs, ids, count) -> fired[0] += count);
      }
      while (wheel.advanceTo(nowMs, 700, (groupId, dueAtMs, ids, count) -> fired[0] += count)) {
        // bounded: drain the rest
      }
      assertThat(wheel.size()).isZero();
      assertThat(wheel.nodesInUse()).isZero();
      if (cycle == 0) {
        nodeCapacity = wheel.nodeCapacity();
        indexCapacity = wheel.indexCapacity();
        assertThat(nodeCapacity).isBetween(5_000, 8_192);
      } else {
        assertThat(wheel.nodeCapacity()).as("cycle %d", cycle).isEqualTo(nodeCapacity);
        assertThat(wheel.indexCapacity()).as("cycle %d", cycle).isEqualTo(indexCapacity);
      }
    }
    assertThat(fired[0]).isEqualTo(id);
    wheel.checkInvariants();
  }

  @Test
  void thePoolGrowsOnDemandUpToMaxPendingThenReportsFull() {
    TimingWheel wheel = new TimingWheel(1, 3, 5_000, 0);
    assertThat(wheel.nodeCapacity()).isEqualTo(TimingWheel.INITIAL_NODE_CAPACITY);
    for (long id = 0; id < 5_000; id++) {
      wheel.add(id, 0, 1 + id);
    }
    assertThat(wheel.nodeCapacity()).isEqualTo(5_000);
    assertThat(wheel.add(5_000, 0, 1)).isEqualTo(AddResult.FULL);
    wheel.clear();
    assertThat(wheel.nodeCapacity()).isEqualTo(TimingWheel.INITIAL_NODE_CAPACITY);
  }
}
