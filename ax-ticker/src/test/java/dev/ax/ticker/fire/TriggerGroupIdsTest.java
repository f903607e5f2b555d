package dev.ax.ticker.fire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link TriggerGroupIds} against a reference model: a map of key to live references, driven by
 * random acquires and releases from a printed seed (rerun a failure with its seed).
 */
class TriggerGroupIdsTest {

  private record Held(String key, int id) {}

  @Test
  void randomAcquiresAndReleasesKeepIdsUniqueBoundedAndReused() {
    long seed = System.nanoTime();
    System.out.println("TriggerGroupIdsTest seed: " + seed);
    Random random = new Random(seed);
    for (int round = 0; round < 20; round++) {
      runModel(random, 1 + random.nextInt(40), 2_000);
    }
  }

  private static void runModel(Random random, int keyCount, int steps) {
    TriggerGroupIds ids = new TriggerGroupIds();
    Map<String, Integer> references = new HashMap<>(); // the model: live keys only
    Map<String, Integer> idOfLive = new HashMap<>();
    List<Held> held = new ArrayList<>();
    int peakLive = 0;
    Integer lastFreed = null;
    for (int step = 0; step < steps; step++) {
      int op = random.nextInt(10);
      if (op < 5 || held.isEmpty()) {
        String key = "CRON|" + random.nextInt(keyCount) + " * * * * ?|UTC";
        boolean isNew = !references.containsKey(key);
        int id = ids.acquire(key);
        assertThat(id).isNotEqualTo(TriggerGroupIds.NO_GROUP);
        if (isNew) {
          if (lastFreed != null) {
            assertThat(id).as("a freed id is reused first").isEqualTo(lastFreed);
            lastFreed = null;
          }
          idOfLive.put(key, id);
        } else {
          assertThat(id).as("a live key keeps its id").isEqualTo(idOfLive.get(key));
        }
        references.merge(key, 1, Integer::sum);
        held.add(new Held(key, id));
      } else if (op < 9) {
        Held entry = held.remove(random.nextInt(held.size()));
        ids.release(entry.id(), 1);
        if (references.merge(entry.key(), -1, Integer::sum) == 0) {
          references.remove(entry.key());
          idOfLive.remove(entry.key());
          lastFreed = entry.id();
        }
      } else {
        // A batch of one group leaves the wheel at once (as handed out by one expiry).
        Held first = held.get(random.nextInt(held.size()));
        List<Held> batch = held.stream().filter(h -> h.key().equals(first.key())).toList();
        int count = 1 + random.nextInt(batch.size());
        for (int i = 0; i < count; i++) {
          held.remove(batch.get(i));
        }
        ids.release(first.id(), count);
        if (references.merge(first.key(), -count, Integer::sum) == 0) {
          references.remove(first.key());
          idOfLive.remove(first.key());
          lastFreed = first.id();
        }
      }
      peakLive = Math.max(peakLive, references.size());
      assertThat(ids.liveGroups()).isEqualTo(references.size());
      Set<Integer> distinct = new HashSet<>(idOfLive.values());
      assertThat(distinct).as("ids unique among live keys").hasSize(idOfLive.size());
      assertThat(ids.highestId()).as("ids bounded by the live keys").isLessThanOrEqualTo(peakLive);
    }
    for (Held entry : held) {
      ids.release(entry.id(), 1);
    }
    assertThat(ids.liveGroups()).isZero();
  }

  @Test
  void noGroupIsNeverCountedAndAClearForgetsEverything() {
    TriggerGroupIds ids = new TriggerGroupIds();
    assertThat(ids.acquire("")).isEqualTo(TriggerGroupIds.NO_GROUP);
    assertThat(ids.acquire(null)).isEqualTo(TriggerGroupIds.NO_GROUP);
    ids.release(TriggerGroupIds.NO_GROUP, 5);
    assertThat(ids.liveGroups()).isZero();

    int a = ids.acquire("a");
    ids.acquire("b");
    assertThat(ids.liveGroups()).isEqualTo(2);
    ids.releaseAll();
    assertThat(ids.liveGroups()).isZero();
    assertThat(ids.acquire("c")).isEqualTo(a);
  }

  @Test
  void givingBackMoreThanWasTakenIsADefectNotASilentReuse() {
    TriggerGroupIds ids = new TriggerGroupIds();
    int a = ids.acquire("a");
    assertThatThrownBy(() -> ids.release(a, 2)).isInstanceOf(IllegalStateException.class);
    ids.release(a, 1);
    assertThatThrownBy(() -> ids.release(a, 1)).isInstanceOf(IllegalStateException.class);
  }
}
