package dev.ax.ticker.fire;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Interns trigger-group keys (e.g. {@code CRON|0/5 * * * * ?|UTC}) as the small ints the wheel
 * stores, for as long as a wheel entry uses them. Each {@link #acquire} counts one entry of the
 * group; each entry that leaves the wheel (handed out, never added, or dropped by a clear) is given
 * back with {@link #release} or {@link #releaseAll}. A group whose count falls to zero is forgotten
 * and its id goes to a free list, which the next new key takes from first: the ids in use, and the
 * memory, stay bounded by the groups in the wheel, not by every key ever seen (a producer with a
 * distinct cron expression or FIXED_RATE start per task would otherwise grow the leader's heap for
 * the life of the process).
 *
 * <p>The empty key (and {@code null}) is {@link #NO_GROUP}, never counted: entries without a group,
 * such as the re-checks of delayed instances.
 *
 * <p>Threading: owned by the tick loop's thread, like the wheel; only {@link #liveGroups} may be
 * read from any thread (for the gauge).
 */
final class TriggerGroupIds {

  /** The id of entries without a trigger group; never given to a key. */
  static final int NO_GROUP = 0;

  private static final int INITIAL_CAPACITY = 16;

  private final Map<String, Integer> ids = new HashMap<>();
  private String[] keys = new String[INITIAL_CAPACITY];
  private int[] references = new int[INITIAL_CAPACITY];
  private int[] free = new int[INITIAL_CAPACITY];
  private int freeCount;
  private int nextId = NO_GROUP + 1;
  private volatile int live;

  /** The id of {@code triggerGroup}, counting one more entry of it; 0 for no group. */
  int acquire(String triggerGroup) {
    if (triggerGroup == null || triggerGroup.isEmpty()) {
      return NO_GROUP;
    }
    Integer known = ids.get(triggerGroup);
    int id;
    if (known != null) {
      id = known;
    } else {
      id = freeCount > 0 ? free[--freeCount] : nextId++;
      if (id >= keys.length) {
        int capacity = keys.length * 2;
        keys = Arrays.copyOf(keys, capacity);
        references = Arrays.copyOf(references, capacity);
      }
      keys[id] = triggerGroup;
      ids.put(triggerGroup, id);
      live++;
    }
    references[id]++;
    return id;
  }

  /**
   * {@code count} entries of group {@code id} left the wheel; the group is forgotten when none is
   * left.
   *
   * @throws IllegalStateException when more are given back than were acquired (a counting defect)
   */
  void release(int id, int count) {
    if (id == NO_GROUP || count == 0) {
      return;
    }
    if (id < 0 || id >= nextId || keys[id] == null || references[id] < count) {
      throw new IllegalStateException(
          "trigger group " + id + " released " + count + " time(s) more than it was acquired");
    }
    references[id] -= count;
    if (references[id] == 0) {
      ids.remove(keys[id]);
      keys[id] = null;
      if (freeCount == free.length) {
        free = Arrays.copyOf(free, free.length * 2);
      }
      free[freeCount++] = id;
      live--;
    }
  }

  /** The wheel was cleared: every group is forgotten, and ids start again from 1. */
  void releaseAll() {
    ids.clear();
    keys = new String[INITIAL_CAPACITY];
    references = new int[INITIAL_CAPACITY];
    free = new int[INITIAL_CAPACITY];
    freeCount = 0;
    nextId = NO_GROUP + 1;
    live = 0;
  }

  /** Groups with at least one entry in the wheel. Any thread. */
  int liveGroups() {
    return live;
  }

  /** The highest id handed out since the last {@link #releaseAll} (0 if none): for tests. */
  int highestId() {
    return nextId - 1;
  }
}
