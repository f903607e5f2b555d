package dev.ax.dispatcher.claim;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * How many held due events each task group may keep when the dispatcher would otherwise pause
 * fetching, so that one saturated group cannot stop the fetching of every other group.
 *
 * <p>The partitions of {@code ax.task.due} are shared by all groups, so pausing them for one
 * group's backlog pauses the others too. That is right for a burst that the pools work off quickly,
 * and wrong for a group whose pool is full of slow runs. This class tells them apart by what the
 * group's pool actually did: a group is <em>backlogged</em> while a drain pass leaves some of its
 * events held for want of room in its pool; once it has been backlogged for {@code holdFor}, it may
 * keep only as many held events as its pool started in the last {@code holdFor} (at least one, the
 * oldest, so the group keeps its place). The events beyond that are left to the row: they are still
 * DISPATCHED, and the ticker's reaper emits them again after {@code AX_REAPER_UNCLAIMED_AFTER}. A
 * no-op burst starts thousands of events per second, so it keeps everything and pauses as before; a
 * pool of ten-second runs starts almost none, so its backlog goes back to the database within
 * {@code holdFor} of the pool filling up.
 *
 * <p>Starts are counted in ten slots of {@code holdFor / 10}, so the window slides in tenths.
 *
 * <p>Not thread-safe: confined to the {@link ClaimLoop}'s thread. Times are the caller's clock in
 * milliseconds.
 */
public final class HoldBudget {

  private static final int SLOTS = 10;

  private final long holdForMs;
  private final long slotMs;
  private final Map<String, GroupPace> groups = new HashMap<>();

  public HoldBudget(Duration holdFor) {
    if (holdFor.isNegative() || holdFor.isZero()) {
      throw new IllegalArgumentException("holdFor must be positive: " + holdFor);
    }
    this.holdForMs = holdFor.toMillis();
    this.slotMs = Math.max(1, holdForMs / SLOTS);
  }

  /**
   * Records one drain pass over {@code group}: {@code started} held events went to its pool, and
   * {@code backlogged} says whether some stayed held because the pool had no more room.
   */
  void drained(String group, int started, boolean backlogged, long nowMs) {
    GroupPace pace = groups.computeIfAbsent(group, g -> new GroupPace());
    pace.started(started, nowMs / slotMs);
    if (!backlogged) {
      pace.backloggedSinceMs = -1;
      pace.shedding = false;
    } else if (pace.backloggedSinceMs < 0) {
      pace.backloggedSinceMs = nowMs;
    }
  }

  /**
   * How many of its held events {@code group} may keep: all of them ({@link Integer#MAX_VALUE})
   * until it has been backlogged for {@code holdFor}; then as many as its pool started in the last
   * {@code holdFor}, and at least one.
   */
  int keep(String group, long nowMs) {
    GroupPace pace = groups.get(group);
    if (pace == null || pace.backloggedSinceMs < 0 || nowMs - pace.backloggedSinceMs < holdForMs) {
      return Integer.MAX_VALUE;
    }
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, pace.startedSince(nowMs / slotMs)));
  }

  /**
   * Marks {@code group} as shedding events; true the first time in one backlog, so the caller logs
   * the start of a shedding episode once and the rest of it quietly.
   */
  boolean startsShedding(String group) {
    GroupPace pace = groups.get(group);
    if (pace == null || pace.shedding) {
      return false;
    }
    pace.shedding = true;
    return true;
  }

  Duration holdFor() {
    return Duration.ofMillis(holdForMs);
  }

  /** One group's starts per slot (a ring of the last {@code SLOTS} slots) and backlog state. */
  private static final class GroupPace {
    private final long[] slot = new long[SLOTS];
    private final long[] count = new long[SLOTS];
    private long backloggedSinceMs = -1;
    private boolean shedding;

    GroupPace() {
      Arrays.fill(slot, Long.MIN_VALUE);
    }

    void started(int n, long nowSlot) {
      int i = (int) Math.floorMod(nowSlot, (long) SLOTS);
      if (slot[i] != nowSlot) {
        slot[i] = nowSlot;
        count[i] = 0;
      }
      count[i] += n;
    }

    /** Starts in the current slot and the {@code SLOTS - 1} before it. */
    long startedSince(long nowSlot) {
      long sum = 0;
      for (int i = 0; i < SLOTS; i++) {
        if (slot[i] > nowSlot - SLOTS && slot[i] <= nowSlot) {
          sum += count[i];
        }
      }
      return sum;
    }
  }
}
