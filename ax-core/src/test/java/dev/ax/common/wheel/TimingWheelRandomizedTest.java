package dev.ax.common.wheel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.wheel.Batches.Batch;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random adds, removes, advances (small steps, jumps, steps back, bounded and unbounded), clears
 * and drains against {@link ReferenceWheel}, over several geometries: every batch, its order, every
 * add result and every "more due" answer must match, and the invariants must hold throughout.
 */
class TimingWheelRandomizedTest {

  private static final int OPERATIONS = 40_000;
  private static final int ID_SPACE = 3_000;
  private static final int MAX_PENDING = 2_000;

  static Stream<Arguments> geometries() {
    return Stream.of(
        Arguments.of(1L, 2, 0L, 11L),
        Arguments.of(1L, 3, 0L, 12L),
        Arguments.of(1L, 3, 1_700_000_000_000L, 13L),
        Arguments.of(1L, 64, 0L, 14L),
        Arguments.of(7L, 5, 3L, 15L),
        Arguments.of(3L, 100, 0L, 16L),
        Arguments.of(10L, 512, 1_700_000_000_005L, 17L));
  }

  @ParameterizedTest(name = "tickMs={0} wheelSize={1} startMs={2} seed={3}")
  @MethodSource("geometries")
  void behavesLikeTheReferenceModel(long tickMs, int wheelSize, long startMs, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    TimingWheel wheel = new TimingWheel(tickMs, wheelSize, MAX_PENDING, startMs);
    ReferenceWheel reference = new ReferenceWheel(MAX_PENDING, startMs);
    Batches batches = new Batches();
    long span0Ms = tickMs * wheelSize;
    long nowMs = startMs;

    for (int operation = 0; operation < OPERATIONS; operation++) {
      int choice = random.nextInt(100);
      if (choice < 55) {
        long id = random.nextInt(ID_SPACE);
        int groupId = random.nextInt(4);
        long dueAtMs = reference.currentTimeMs() + delayMs(random, tickMs, span0Ms);
        assertThat(wheel.add(id, groupId, dueAtMs))
            .as("add %d due %d at op %d", id, dueAtMs, operation)
            .isEqualTo(reference.add(id, groupId, dueAtMs));
      } else if (choice < 62) {
        long id = random.nextInt(ID_SPACE);
        assertThat(wheel.remove(id)).isEqualTo(reference.remove(id));
      } else if (choice < 98) {
        nowMs = nextNowMs(random, nowMs, tickMs, span0Ms);
        int maxInstances = random.nextBoolean() ? Integer.MAX_VALUE : 1 + random.nextInt(30);
        List<Batch> expected = new ArrayList<>();
        boolean expectedMore = reference.advanceTo(nowMs, maxInstances, expected);
        boolean more = wheel.advanceTo(nowMs, maxInstances, batches);
        assertThat(batches.take())
            .as("advance to %d at op %d", nowMs, operation)
            .isEqualTo(expected);
        assertThat(more).as("more due after op %d", operation).isEqualTo(expectedMore);
        assertThat(wheel.currentTimeMs()).isEqualTo(reference.currentTimeMs());
        if (!more) {
          assertThat(wheel.nextExpiryMs()).isGreaterThan(wheel.currentTimeMs());
        }
      } else if (choice < 99) {
        long id = random.nextInt(ID_SPACE);
        assertThat(wheel.contains(id)).isEqualTo(reference.contains(id));
      } else if (random.nextInt(20) == 0) {
        assertThat(wheel.drain())
            .containsExactlyInAnyOrder(reference.clear().stream().mapToLong(i -> i).toArray());
      }
      assertThat(wheel.size()).isEqualTo(reference.size());
      assertThat(wheel.nextExpiryMs()).isLessThanOrEqualTo(reference.minDueMs());
      if (operation % 97 == 0) {
        wheel.checkInvariants();
      }
    }

    wheel.checkInvariants();
    List<Batch> expected = new ArrayList<>();
    reference.advanceTo(Long.MAX_VALUE, Integer.MAX_VALUE, expected);
    wheel.advanceTo(Long.MAX_VALUE, batches);
    assertThat(batches.take()).isEqualTo(expected);
    assertThat(wheel.size()).isZero();
    assertThat(wheel.nodesInUse()).isZero();
    wheel.checkInvariants();
  }

  /** Delays around every level boundary, with some already due and some very far. */
  private static long delayMs(SplittableRandom random, long tickMs, long span0Ms) {
    int kind = random.nextInt(100);
    if (kind < 8) {
      return -random.nextLong(3 * tickMs); // already due or due now
    } else if (kind < 45) {
      return 1 + random.nextLong(2 * span0Ms);
    } else if (kind < 75) {
      return 1 + random.nextLong(3 * span0Ms * Math.min(span0Ms, 1_000));
    } else if (kind < 98) {
      return 1 + random.nextLong(2_000_000);
    }
    return 1 + random.nextLong(1_000_000_000_000L);
  }

  private static long nextNowMs(SplittableRandom random, long nowMs, long tickMs, long span0Ms) {
    int kind = random.nextInt(100);
    if (kind < 55) {
      return nowMs + random.nextLong(2 * tickMs + 1);
    } else if (kind < 85) {
      return nowMs + random.nextLong(3 * span0Ms + 1);
    } else if (kind < 95) {
      return nowMs + random.nextLong(300_000);
    } else if (kind < 99) {
      return nowMs - random.nextLong(100); // a clock stepping back: must change nothing
    }
    return nowMs + random.nextLong(5_000_000_000L);
  }
}
