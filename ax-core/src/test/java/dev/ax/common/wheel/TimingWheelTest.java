package dev.ax.common.wheel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.common.wheel.Batches.Batch;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The wheel with a tiny geometry (1 ms tick, 3 slots, as Kafka's timer tests use) so that overflow
 * levels and cascades are exercised on every few milliseconds. Time is the numbers passed in.
 */
class TimingWheelTest {

  private static final int GROUP = 7;

  private final Batches batches = new Batches();

  private static TimingWheel tinyWheel() {
    return new TimingWheel(1, 3, 10_000, 0);
  }

  /** Advances {@code wheel} to {@code nowMs}; the batches that fell due on the way. */
  private List<Batch> advance(TimingWheel wheel, long nowMs) {
    wheel.advanceTo(nowMs, batches);
    return batches.take();
  }

  @Test
  void everyInstanceFiresExactlyAtItsDueTimeThroughAllLevels() {
    TimingWheel wheel = tinyWheel();
    for (long dueAtMs = 1; dueAtMs <= 500; dueAtMs++) {
      assertThat(wheel.add(dueAtMs, GROUP, dueAtMs)).isEqualTo(AddResult.ADDED);
    }
    assertThat(wheel.levels()).as("500 ms on 3-slot wheels needs 6 levels").isEqualTo(6);
    wheel.checkInvariants();

    for (long nowMs = 1; nowMs <= 500; nowMs++) {
      assertThat(advance(wheel, nowMs))
          .as("at %d", nowMs)
          .containsExactly(Batch.of(GROUP, nowMs, nowMs));
      wheel.checkInvariants();
    }
    assertThat(wheel.isEmpty()).isTrue();
  }

  @Test
  void theWorkedExampleOfTheClassComment() {
    TimingWheel wheel = tinyWheel();
    for (long dueAtMs : new long[] {1, 2, 4, 7, 20, 30}) {
      wheel.add(dueAtMs, GROUP, dueAtMs);
    }
    assertThat(wheel.levels()).isEqualTo(4);

    wheel.advanceTo(3, batches);
    assertThat(batches.takeIds()).containsExactly(1L, 2L);
    assertThat(wheel.nextExpiryMs()).as("4 was cascaded into level 0: exact").isEqualTo(4);

    assertThat(advance(wheel, 30))
        .containsExactly(
            Batch.of(GROUP, 4, 4), Batch.of(GROUP, 7, 7),
            Batch.of(GROUP, 20, 20), Batch.of(GROUP, 30, 30));
    wheel.checkInvariants();
  }

  @Test
  void neverEarlyAtMillisecondPrecisionWithinATick() {
    TimingWheel wheel = new TimingWheel(10, 8, 100, 0);
    wheel.advanceTo(100, batches);
    assertThat(wheel.add(1, GROUP, 105)).isEqualTo(AddResult.ADDED);
    assertThat(wheel.add(2, GROUP, 109)).isEqualTo(AddResult.ADDED);
    assertThat(wheel.nextExpiryMs()).isEqualTo(105);

    for (long nowMs = 100; nowMs < 105; nowMs++) {
      assertThat(wheel.advanceTo(nowMs, 100, batches)).isFalse();
      assertThat(batches.take()).as("at %d", nowMs).isEmpty();
    }
    assertThat(advance(wheel, 105)).containsExactly(Batch.of(GROUP, 105, 1));
    assertThat(wheel.nextExpiryMs()).as("known after the scan").isEqualTo(109);
    assertThat(advance(wheel, 108)).isEmpty();
    assertThat(advance(wheel, 109)).containsExactly(Batch.of(GROUP, 109, 2));
  }

  @Test
  void aLaterTickIsNotFiredAtItsStartWhenDueInsideIt() {
    TimingWheel wheel = new TimingWheel(10, 4, 100, 0);
    wheel.add(1, GROUP, 1_234); // beyond level 0 (40 ms): cascades first

    assertThat(advance(wheel, 1_230)).isEmpty();
    assertThat(wheel.nextExpiryMs()).isBetween(1_231L, 1_234L);
    assertThat(advance(wheel, 1_233)).isEmpty();
    assertThat(advance(wheel, 5_000)).containsExactly(Batch.of(GROUP, 1_234, 1));
  }

  @Test
  void batchesByGroupAndDueTimeOrderedByDueThenGroup() {
    TimingWheel wheel = new TimingWheel(10, 8, 100, 0);
    wheel.add(1, 2, 50);
    wheel.add(2, 1, 50);
    wheel.add(3, 2, 50);
    wheel.add(4, 1, 51); // same tick, later millisecond: its own batch
    wheel.add(5, 1, 50);
    wheel.add(6, 0, 60);
    wheel.add(7, 2, 45);

    wheel.advanceTo(60, batches);

    assertThat(batches.take())
        .containsExactly(
            Batch.of(2, 45, 7),
            Batch.of(1, 50, 2, 5),
            Batch.of(2, 50, 1, 3),
            Batch.of(1, 51, 4),
            Batch.of(0, 60, 6));
  }

  @Test
  void oneBigJumpHandsOutEverythingOldestFirstAcrossCascades() {
    TimingWheel wheel = tinyWheel();
    TreeMap<Long, TreeMap<Integer, List<Long>>> expected = new TreeMap<>();
    long id = 0;
    // Added at different cursor positions, so that instances of one due time reach level 0
    // through different cascades, and bucket by bucket in a different order than added.
    for (long startMs = 0; startMs < 40; startMs += 13) {
      wheel.advanceTo(startMs, batches);
      for (long dueAtMs = 2_000; dueAtMs > 40; dueAtMs -= 37 + startMs) {
        int groupId = (int) (dueAtMs % 3);
        wheel.add(id, groupId, dueAtMs);
        expected
            .computeIfAbsent(dueAtMs, due -> new TreeMap<>())
            .computeIfAbsent(groupId, group -> new ArrayList<>())
            .add(id++);
      }
    }
    assertThat(batches.take()).isEmpty();

    wheel.advanceTo(10_000, batches);

    List<Batch> expectedBatches = new ArrayList<>();
    expected.forEach(
        (dueAtMs, groups) ->
            groups.forEach(
                (groupId, ids) ->
                    expectedBatches.add(
                        Batch.of(groupId, dueAtMs, ids.stream().mapToLong(i -> i).toArray()))));
    assertThat(batches.take()).containsExactlyElementsOf(expectedBatches);
    assertThat(wheel.isEmpty()).isTrue();
  }

  @Test
  void duplicatesAreDetectedWhilePendingAndAllowedAfterFiring() {
    TimingWheel wheel = tinyWheel();
    assertThat(wheel.add(1, GROUP, 10)).isEqualTo(AddResult.ADDED);
    assertThat(wheel.add(1, GROUP, 10)).isEqualTo(AddResult.DUPLICATE);
    assertThat(wheel.add(1, 3, 99))
        .as("other due time: still the same instance")
        .isEqualTo(AddResult.DUPLICATE);
    assertThat(wheel.size()).isEqualTo(1);
    assertThat(wheel.contains(1)).isTrue();

    wheel.advanceTo(9, batches);
    assertThat(wheel.add(1, GROUP, 5))
        .as("pending wins over already due")
        .isEqualTo(AddResult.DUPLICATE);
    assertThat(advance(wheel, 10)).containsExactly(Batch.of(GROUP, 10, 1));
    assertThat(wheel.contains(1)).isFalse();
    assertThat(wheel.add(1, GROUP, 20)).as("fired, so new").isEqualTo(AddResult.ADDED);
  }

  @Test
  void anInstanceDueButNotYetHandedOutIsStillADuplicate() {
    TimingWheel wheel = tinyWheel();
    for (long id = 1; id <= 3; id++) {
      wheel.add(id, (int) id, 5);
    }
    assertThat(wheel.advanceTo(5, 1, batches)).isTrue();
    assertThat(batches.takeIds()).containsExactly(1L);

    assertThat(wheel.add(3, GROUP, 50)).isEqualTo(AddResult.DUPLICATE);
    assertThat(wheel.add(1, GROUP, 50)).isEqualTo(AddResult.ADDED);
  }

  @Test
  void alreadyDueInstancesAreNotHeld() {
    TimingWheel wheel = new TimingWheel(10, 8, 100, 1_000);
    assertThat(wheel.add(1, GROUP, 1_000)).isEqualTo(AddResult.ALREADY_DUE);
    assertThat(wheel.add(2, GROUP, 3)).isEqualTo(AddResult.ALREADY_DUE);
    assertThat(wheel.add(3, GROUP, 1_001)).isEqualTo(AddResult.ADDED);
    assertThat(wheel.size()).isEqualTo(1);
  }

  @Test
  void addBeyondMaxPendingIsFullUntilSomethingFires() {
    TimingWheel wheel = new TimingWheel(1, 3, 3, 0);
    assertThat(wheel.add(1, GROUP, 10)).isEqualTo(AddResult.ADDED);
    assertThat(wheel.add(2, GROUP, 20)).isEqualTo(AddResult.ADDED);
    assertThat(wheel.add(3, GROUP, 30)).isEqualTo(AddResult.ADDED);
    assertThat(wheel.add(4, GROUP, 5)).isEqualTo(AddResult.FULL);
    assertThat(wheel.add(1, GROUP, 10))
        .as("duplicate is told first")
        .isEqualTo(AddResult.DUPLICATE);
    assertThat(wheel.add(5, GROUP, 0))
        .as("already due is told first")
        .isEqualTo(AddResult.ALREADY_DUE);
    assertThat(wheel.size()).isEqualTo(3);

    wheel.advanceTo(10, batches);
    assertThat(wheel.add(4, GROUP, 15)).isEqualTo(AddResult.ADDED);
    assertThat(wheel.remove(2)).isTrue();
    assertThat(wheel.add(6, GROUP, 15)).isEqualTo(AddResult.ADDED);
    assertThat(wheel.add(7, GROUP, 15)).isEqualTo(AddResult.FULL);
  }

  @Test
  void boundedAdvanceFinishesTheBatchAndResumesInOrder() {
    TimingWheel wheel = tinyWheel();
    wheel.add(1, 1, 5);
    wheel.add(2, 1, 5);
    wheel.add(3, 1, 5);
    wheel.add(4, 2, 5);
    wheel.add(5, 1, 6);
    wheel.add(6, 1, 7);
    wheel.add(7, 1, 9);

    assertThat(wheel.advanceTo(8, 2, batches)).isTrue();
    assertThat(batches.take())
        .as("a batch is never split")
        .containsExactly(Batch.of(1, 5, 1, 2, 3));
    assertThat(wheel.nextExpiryMs()).as("due now").isEqualTo(5);

    assertThat(wheel.advanceTo(8, 1, batches)).isTrue();
    assertThat(batches.take()).containsExactly(Batch.of(2, 5, 4));
    assertThat(wheel.advanceTo(0, 2, batches))
        .as("an earlier time still drains what is due")
        .isFalse();
    assertThat(batches.take()).containsExactly(Batch.of(1, 6, 5), Batch.of(1, 7, 6));
    assertThat(wheel.nextExpiryMs()).isEqualTo(9);
    assertThat(wheel.advanceTo(8, 10, batches)).isFalse();
    assertThat(batches.take()).isEmpty();
    wheel.checkInvariants();
  }

  @Test
  void boundedAdvanceReportsNoMoreWhenTheBudgetIsUsedExactly() {
    TimingWheel wheel = tinyWheel();
    wheel.add(1, 1, 5);
    wheel.add(2, 1, 50);
    assertThat(wheel.advanceTo(10, 1, batches)).isFalse();
    assertThat(batches.takeIds()).containsExactly(1L);
  }

  @Test
  void theClockNeverGoesBack() {
    TimingWheel wheel = tinyWheel();
    wheel.add(1, GROUP, 50);
    wheel.advanceTo(40, batches);
    wheel.advanceTo(10, batches);
    assertThat(wheel.currentTimeMs()).isEqualTo(40);
    assertThat(wheel.add(2, GROUP, 30))
        .as("due relative to 40, not 10")
        .isEqualTo(AddResult.ALREADY_DUE);
    assertThat(advance(wheel, 49)).isEmpty();
    wheel.advanceTo(50, batches);
    assertThat(batches.takeIds()).containsExactly(1L);
  }

  @Test
  void drainReturnsWhatNeverFiredIncludingReadyAndTheWheelStaysUsable() {
    TimingWheel wheel = tinyWheel();
    for (long id = 1; id <= 100; id++) {
      wheel.add(id, (int) (id % 4), id * 7);
    }
    wheel.advanceTo(70, 3, batches); // 1, 2, 3 handed out; 4..10 due and waiting
    assertThat(batches.takeIds()).containsExactly(1L, 2L, 3L);
    wheel.remove(50);

    long[] drained = wheel.drain();

    assertThat(drained).hasSize(96).doesNotContain(1, 2, 3, 50).contains(4, 10, 11, 100);
    assertThat(wheel.size()).isZero();
    assertThat(wheel.nextExpiryMs()).isEqualTo(Long.MAX_VALUE);
    assertThat(wheel.currentTimeMs()).isEqualTo(70);
    assertThat(wheel.nodeCapacity()).isEqualTo(TimingWheel.INITIAL_NODE_CAPACITY);
    wheel.checkInvariants();
    assertThat(advance(wheel, 10_000)).isEmpty();

    assertThat(wheel.add(4, GROUP, 10_001)).isEqualTo(AddResult.ADDED);
    wheel.advanceTo(10_001, batches);
    assertThat(batches.takeIds()).containsExactly(4L);
  }

  @Test
  void clearReturnsHowManyWerePending() {
    TimingWheel wheel = tinyWheel();
    wheel.add(1, GROUP, 5);
    wheel.add(2, GROUP, 500);
    assertThat(wheel.clear()).isEqualTo(2);
    assertThat(wheel.contains(1)).isFalse();
    assertThat(advance(wheel, 1_000)).isEmpty();
  }

  @Test
  void removeCancelsInABucketAndInTheReadyQueue() {
    TimingWheel wheel = tinyWheel();
    for (long id = 1; id <= 6; id++) {
      wheel.add(id, (int) id, id < 4 ? 5 : 100);
    }
    assertThat(wheel.remove(5)).isTrue();
    assertThat(wheel.remove(5)).isFalse();
    assertThat(wheel.remove(42)).isFalse();
    assertThat(wheel.advanceTo(5, 1, batches)).isTrue();
    assertThat(batches.takeIds()).containsExactly(1L);
    assertThat(wheel.remove(2)).as("due, waiting in the ready queue").isTrue();
    assertThat(wheel.size()).isEqualTo(3);
    wheel.checkInvariants();

    wheel.advanceTo(100, batches);
    assertThat(batches.takeIds()).containsExactly(3L, 4L, 6L);
    assertThat(wheel.nodesInUse()).isZero();
    wheel.checkInvariants();
  }

  @Test
  void nextExpiryIsExactInLevelZeroAndALowerBoundAbove() {
    TimingWheel wheel = new TimingWheel(10, 8, 100, 0);
    assertThat(wheel.nextExpiryMs()).isEqualTo(Long.MAX_VALUE);
    wheel.add(1, GROUP, 35);
    assertThat(wheel.nextExpiryMs()).as("level 0: the tick's start").isEqualTo(30);
    wheel.add(2, GROUP, 1_005);
    assertThat(wheel.nextExpiryMs()).isEqualTo(30);
    wheel.advanceTo(35, batches);
    // Added at cursor tick 0: tick 100 is beyond level 1 (ticks 8 to 63), so level 2 holds it in
    // bucket [64, 128), which cascades at tick 64; there level 1's [96, 104) takes it.
    assertThat(wheel.nextExpiryMs()).as("level 2 bucket cascades at 640").isEqualTo(640);
    wheel.advanceTo(640, batches);
    assertThat(wheel.nextExpiryMs()).as("level 1 bucket cascades at 960").isEqualTo(960);
    wheel.advanceTo(960, batches);
    assertThat(wheel.nextExpiryMs()).as("in level 0: exact to the tick").isEqualTo(1_000);
    assertThat(batches.take()).containsExactly(Batch.of(GROUP, 35, 1));
  }

  @Test
  void theHandlerMayReAddAndRemoveButNotReEnter() {
    TimingWheel wheel = tinyWheel();
    wheel.add(1, GROUP, 5);
    wheel.add(2, GROUP, 6);
    wheel.add(3, GROUP, 7);
    List<Long> fired = new ArrayList<>();
    List<Throwable> reentry = new ArrayList<>();
    ExpiryHandler periodic =
        (groupId, dueAtMs, ids, count) -> {
          long id = ids[0];
          fired.add(id);
          if (id == 1 && dueAtMs == 5) {
            assertThat(wheel.add(1, groupId, dueAtMs + 100)).isEqualTo(AddResult.ADDED);
            assertThat(wheel.remove(3)).isTrue();
            try {
              wheel.advanceTo(100, (g, d, i, c) -> {});
            } catch (IllegalStateException expected) {
              reentry.add(expected);
            }
          }
        };

    wheel.advanceTo(20, periodic);
    wheel.advanceTo(105, periodic);

    assertThat(fired).containsExactly(1L, 2L, 1L);
    assertThat(reentry).hasSize(1);
    wheel.add(4, GROUP, 200);
    assertThatThrownBy(() -> wheel.advanceTo(200, (g, d, i, c) -> wheel.drain()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("drain must not be called from the expiry handler");
  }

  @Test
  void aThrowingHandlerLosesOnlyItsBatch() {
    TimingWheel wheel = tinyWheel();
    wheel.add(1, GROUP, 5);
    wheel.add(2, GROUP, 6);
    ExpiryHandler failing =
        (groupId, dueAtMs, ids, count) -> {
          throw new IllegalStateException("handler failed on " + ids[0]);
        };

    assertThatThrownBy(() -> wheel.advanceTo(10, failing)).hasMessageContaining("on 1");
    assertThat(wheel.contains(1)).isFalse();
    assertThat(wheel.size()).isEqualTo(1);
    wheel.checkInvariants();
    assertThat(wheel.advanceTo(10, Integer.MAX_VALUE, batches)).isFalse();
    assertThat(batches.takeIds()).containsExactly(2L);
  }

  @Test
  void farFutureAndLargeTimesAreHeld() {
    TimingWheel wheel = new TimingWheel(1, 3, 100, 1_700_000_000_000L);
    assertThat(wheel.add(1, GROUP, Long.MAX_VALUE)).isEqualTo(AddResult.ADDED);
    assertThat(wheel.add(2, GROUP, 1_700_000_000_001L)).isEqualTo(AddResult.ADDED);
    wheel.checkInvariants();
    wheel.advanceTo(Long.MAX_VALUE - 1, batches);
    assertThat(batches.takeIds()).containsExactly(2L);
    wheel.advanceTo(Long.MAX_VALUE, batches);
    assertThat(batches.takeIds()).containsExactly(1L);
  }

  @Test
  void constructorRejectsBadValuesNamingThem() {
    assertThatThrownBy(() -> new TimingWheel(0, 8, 10, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("tickMs must be at least 1: 0");
    assertThatThrownBy(() -> new TimingWheel(1, 1, 10, 0))
        .hasMessage("wheelSize must be between 2 and 65536: 1");
    assertThatThrownBy(() -> new TimingWheel(1, 8, 0, 0))
        .hasMessage("maxPending must be between 1 and 268435456: 0");
    assertThatThrownBy(() -> new TimingWheel(1, 8, 10, -5))
        .hasMessage("startMs must not be negative: -5");
    TimingWheel wheel = tinyWheel();
    assertThatThrownBy(() -> wheel.advanceTo(1, 0, batches))
        .hasMessage("maxInstances must be at least 1: 0");
  }

  @Test
  void defaultsAreTenMillisecondTicksAnd512Slots() {
    TimingWheel wheel = new TimingWheel(1_000, 0);
    assertThat(wheel.tickMs()).isEqualTo(TimingWheel.DEFAULT_TICK_MS).isEqualTo(10);
    assertThat(wheel.wheelSize()).isEqualTo(TimingWheel.DEFAULT_WHEEL_SIZE).isEqualTo(512);
    assertThat(wheel.maxPending()).isEqualTo(1_000);
  }
}
