package dev.ax.common.wheel;

import java.util.Arrays;
import java.util.Objects;

/**
 * Hierarchical timing wheel of pending instances: instance id, trigger group and due time, nothing
 * else (the task details stay in the database). The owner adds instances and moves the wheel's
 * clock forward with {@link #advanceTo}; the wheel hands back, in batches, every instance whose due
 * time the clock has reached.
 *
 * <h2>The algorithm</h2>
 *
 * A simple timing wheel is a ring of {@code wheelSize} buckets, each {@code tickMs} wide. Bucket
 * {@code (dueAtMs / tickMs) % wheelSize} holds the instances due in that tick, so adding one is
 * O(1), and the clock moving one tick expires one whole bucket, also O(1) per instance. A priority
 * queue ({@link java.util.concurrent.DelayQueue}) pays O(log n) for both, and an object and a cache
 * miss per level of its heap. A ring of n buckets only covers {@code tickMs * n} from now; for
 * longer delays each level overflows into a wheel whose buckets are as wide as the whole wheel
 * below it ({@code tickMs * wheelSize^level}). When the clock reaches the start of an overflow
 * bucket, the bucket <em>cascades</em>: its instances are placed again, now in finer levels, and
 * eventually in level 0, where they expire. An instance moves at most once per level (there are
 * few: with 10 ms and 512 slots, level 0 covers 5 s, level 1 43 min, level 2 15 days), so adding
 * and expiring stay O(1) amortised. This is Kafka's {@code TimingWheel}, with four differences: the
 * owner drives the clock explicitly (no DelayQueue of buckets: a bitmap of non-empty buckets per
 * level finds the next bucket to expire or cascade, so a jump over an empty hour costs a few word
 * scans); expiry is exact to the millisecond, not the tick; instances come out in order; and a
 * bucket is an unrolled list of node numbers rather than a linked list through the entries, so that
 * a cascade reads it in sequence instead of chasing one cache miss per entry.
 *
 * <p>Placement is relative to the <em>cursor</em>, the level-0 tick the wheel has expired up to.
 * With cursor c, an instance due in tick d goes to level 0 when {@code d < c + wheelSize}, else to
 * the lowest level L whose bucket index {@code d / wheelSize^L} is below {@code c / wheelSize^L +
 * wheelSize}; that index is then always above the cursor's own, so its bucket cascades in the
 * future, and each level's buckets in use map to distinct slots. The bucket for the cursor's own
 * index at a level above 0 stays unused: lower levels cover that range (Kafka's wheel has the
 * same).
 *
 * <h2>Example</h2>
 *
 * {@code tickMs} 1, {@code wheelSize} 3, clock and cursor at 0. Instances due at 1, 2, 4, 7, 20 and
 * 30 are placed like this (a bucket is its range of due times):
 *
 * <pre>
 * level  width   slot 0            slot 1             slot 2
 * 0      1 ms    [0]               [1]: 1             [2]: 2
 * 1      3 ms    (unused)          [3, 5]: 4          [6, 8]: 7
 * 2      9 ms    (unused)          [9, 17]            [18, 26]: 20
 * 3      27 ms   (unused)          [27, 53]: 30       [54, 80]
 * </pre>
 *
 * {@code advanceTo(3)} expires tick 1, then tick 2 (one batch each, in that order). Reaching 3, the
 * start of level 1's [3, 5], it cascades: 4 moves to level 0, which now covers [3], [4], [5].
 *
 * <pre>
 * level  width   slot 0            slot 1             slot 2
 * 0      1 ms    [3]               [4]: 4             [5]
 * 1      3 ms    [9, 11]           (unused)           [6, 8]: 7
 * 2      9 ms    (unused)          [9, 17]            [18, 26]: 20
 * 3      27 ms   (unused)          [27, 53]: 30       [54, 80]
 * </pre>
 *
 * {@code advanceTo(30)} then expires 4; cascades [6, 8] at 6 and expires 7; skips the empty [9,
 * 17]; cascades [18, 26] at 18 (20 lands in level 0, which covers [18, 20]) and expires 20; at 27
 * cascades [27, 53] (30 lands in level 1's [30, 32]), at 30 cascades that and expires 30. Six
 * batches, oldest first, and only non-empty buckets were visited.
 *
 * <h2>Never early, never lost, in order, in batches</h2>
 *
 * An instance is handed out only by an advance to a time at or after its {@code dueAtMs}, to the
 * millisecond: with a 10 ms tick, one due at 105 is not handed out by {@code advanceTo(100)} (its
 * bucket, [100, 110), is the current one) but by the first advance to 105 or later. The wheel scans
 * the current tick's bucket only when the clock has passed the earliest due time it holds (kept as
 * a lower bound), so advancing every millisecond costs no repeated scans. Every added instance is
 * handed out exactly once, unless it is removed or the wheel is cleared.
 *
 * <p>Instances of the same trigger group due at the same millisecond are one batch: one call of the
 * {@link ExpiryHandler} with all their ids. Batches come out ordered by due time, then group,
 * within an advance and across advances. Expired buckets pass through a ready queue (sorted per
 * tick), which lets {@code advanceTo(nowMs, maxInstances, handler)} stop after about {@code
 * maxInstances} and resume in the same order on the next call: the owner's loop stays responsive.
 *
 * <h2>Memory</h2>
 *
 * No object per instance: an instance is a node of three longs in one primitive array (24 bytes,
 * see {@link NodePool}), a bucket holds node numbers in chunks (about 4 bytes a node, see {@link
 * Buckets}), and duplicate detection is an open-addressing table of hashes and node numbers (16
 * bytes per instance at a million, see {@link InstanceIndex}). At 1,000,000 pending that is about
 * 46 bytes per instance; the arrays grow from 1024 nodes and shrink back on {@link #clear}. {@link
 * #estimatedHeapBytes} reports it.
 *
 * <p>{@link #remove} is O(1) and lazy: the node is marked and freed when the wheel reaches its
 * bucket. Should cancelled nodes come to outnumber half the pending ones, one sweep over the
 * buckets frees them, so the nodes held stay within 1.5 times {@code maxPending} (plus 1024).
 *
 * <h2>Threading</h2>
 *
 * Not thread-safe. One owning thread calls every method; the wheel has no locks and no volatile
 * state, and other threads must hand their instances to the owner (for example through a bounded
 * queue that the owner drains before each advance). The {@link ExpiryHandler} runs on the owner
 * thread inside {@code advanceTo}; it may add and remove, but {@code advanceTo}, {@code clear} and
 * {@code drain} throw {@link IllegalStateException} there.
 *
 * <h2>Time</h2>
 *
 * The wheel has no clock of its own: time is the {@code nowMs} passed to {@code advanceTo}, so the
 * owner injects its clock and tests pass plain numbers. The wheel's time never goes back: {@code
 * advanceTo(t)} with {@code t} below {@link #currentTimeMs()} leaves the clock where it is (it
 * still hands out instances that a bounded earlier advance left due). Times must not be negative.
 */
public final class TimingWheel {

  /** The default width of a level-0 bucket, in milliseconds. */
  public static final long DEFAULT_TICK_MS = 10;

  /** The default number of buckets per level: with 10 ms ticks, level 0 spans 5.12 s. */
  public static final int DEFAULT_WHEEL_SIZE = 512;

  /** The largest wheel size accepted. */
  public static final int MAX_WHEEL_SIZE = 1 << 16;

  /** The largest {@code maxPending} accepted (nodes and the id index must fit int-sized arrays). */
  public static final int MAX_PENDING_LIMIT = 1 << 28;

  static final int INITIAL_NODE_CAPACITY = 1024;

  private static final int INITIAL_BATCH_CAPACITY = 16;
  private static final int SWEEP_MIN_CANCELLED = 1024;
  private static final long UNKNOWN = Long.MIN_VALUE;

  private final long tickMs;
  private final int wheelSize;
  private final boolean wheelSizeIsPowerOfTwo;
  private final int maxPending;

  /** {@code spanTicks[level]}: level-0 ticks per bucket of that level, {@code wheelSize^level}. */
  private final long[] spanTicks;

  private final int wordsPerLevel;

  /** Levels whose arrays exist; more are added on demand (Kafka's overflow wheels). */
  private int levels;

  /** Bucket {@code level * wheelSize + slot}: the nodes in it, in order of arrival. */
  private final Buckets buckets = new Buckets();

  /** One bit per bucket, set while the bucket holds a node. */
  private long[] occupied;

  /** Per level, how many of its buckets hold a node. */
  private int[] occupiedBuckets;

  private final NodePool pool;
  private final InstanceIndex index;
  private final ReadyQueue ready = new ReadyQueue();
  private long[] batchIds = new long[INITIAL_BATCH_CAPACITY];

  /** The latest time advanced to: everything due at or before it is expired or ready. */
  private long currentTimeMs;

  /** The level-0 tick up to which buckets have been expired; at most currentTimeMs's tick. */
  private long cursorTick;

  /**
   * A lower bound on the due times in the cursor's level-0 bucket ({@link Long#MAX_VALUE} when it
   * is empty, {@link #UNKNOWN} when not yet scanned).
   */
  private long cursorBucketMinDueMs;

  /** Pending instances: in buckets or in the ready queue, not cancelled. */
  private int size;

  /** Nodes removed but not yet freed: still in a bucket or in the ready queue. */
  private int cancelledNodes;

  private boolean advancing;

  /**
   * @param tickMs the width of a level-0 bucket, at least 1
   * @param wheelSize the number of buckets per level, 2 to {@link #MAX_WHEEL_SIZE}
   * @param maxPending the most instances held at once, 1 to {@link #MAX_PENDING_LIMIT}; {@link
   *     #add} returns {@link AddResult#FULL} beyond it
   * @param startMs the wheel's initial time, not negative; instances due at or before it are
   *     already due
   */
  public TimingWheel(long tickMs, int wheelSize, int maxPending, long startMs) {
    if (tickMs < 1) {
      throw new IllegalArgumentException("tickMs must be at least 1: " + tickMs);
    }
    if (wheelSize < 2 || wheelSize > MAX_WHEEL_SIZE) {
      throw new IllegalArgumentException(
          "wheelSize must be between 2 and " + MAX_WHEEL_SIZE + ": " + wheelSize);
    }
    if (maxPending < 1 || maxPending > MAX_PENDING_LIMIT) {
      throw new IllegalArgumentException(
          "maxPending must be between 1 and " + MAX_PENDING_LIMIT + ": " + maxPending);
    }
    if (startMs < 0) {
      throw new IllegalArgumentException("startMs must not be negative: " + startMs);
    }
    this.tickMs = tickMs;
    this.wheelSize = wheelSize;
    this.wheelSizeIsPowerOfTwo = Integer.bitCount(wheelSize) == 1;
    this.maxPending = maxPending;
    this.spanTicks = spans(wheelSize);
    this.wordsPerLevel = (wheelSize + 63) >>> 6;
    this.pool = new NodePool(Math.min(INITIAL_NODE_CAPACITY, maxPending), maxPending);
    this.index = new InstanceIndex(pool);
    this.currentTimeMs = startMs;
    this.cursorTick = startMs / tickMs;
    resetBuckets();
  }

  /** A wheel of {@link #DEFAULT_WHEEL_SIZE} buckets of {@link #DEFAULT_TICK_MS}. */
  public TimingWheel(int maxPending, long startMs) {
    this(DEFAULT_TICK_MS, DEFAULT_WHEEL_SIZE, maxPending, startMs);
  }

  /**
   * Holds an instance until the clock reaches {@code dueAtMs}. O(1).
   *
   * <p>Checked in this order: an id already pending is {@link AddResult#DUPLICATE} (whatever its
   * due time); one due at or before {@link #currentTimeMs()} is {@link AddResult#ALREADY_DUE} and
   * is not held (the caller fires it at once); beyond {@code maxPending} it is {@link
   * AddResult#FULL}.
   */
  public AddResult add(long instanceId, int groupId, long dueAtMs) {
    int slot = index.indexOf(instanceId);
    if (slot >= 0) {
      return AddResult.DUPLICATE;
    }
    if (dueAtMs <= currentTimeMs) {
      return AddResult.ALREADY_DUE;
    }
    if (size >= maxPending) {
      return AddResult.FULL;
    }
    int node = pool.allocate(instanceId, groupId, dueAtMs);
    index.insertAt(~slot, instanceId, node);
    size++;
    place(node, dueAtMs);
    return AddResult.ADDED;
  }

  /** Cancels a pending instance; false when it is not pending. O(1). */
  public boolean remove(long instanceId) {
    int node = index.remove(instanceId);
    if (node < 0) {
      return false;
    }
    size--;
    pool.setState(node, NodePool.CANCELLED); // freed when the wheel reaches it
    cancelledNodes++;
    if (cancelledNodes > SWEEP_MIN_CANCELLED + (size >> 1)) {
      sweepCancelled();
    }
    return true;
  }

  /** Whether the instance is pending: added, not yet handed out, not removed. */
  public boolean contains(long instanceId) {
    return index.indexOf(instanceId) >= 0;
  }

  /** Advances without a bound on the work: see {@link #advanceTo(long, int, ExpiryHandler)}. */
  public void advanceTo(long nowMs, ExpiryHandler handler) {
    advanceTo(nowMs, Integer.MAX_VALUE, handler);
  }

  /**
   * Moves the clock to {@code nowMs} (unless it is already later) and hands every instance due at
   * or before the clock to {@code handler}, one call per (group, due time), oldest due time first,
   * then by group.
   *
   * <p>Stops once it has handed out at least {@code maxInstances} (it finishes the batch it is in,
   * so a call can hand out more). The rest stays due and comes first on the next call, which may
   * pass the same {@code nowMs}. The work per call is bounded by the instances handed out, plus one
   * tick's bucket looked ahead, plus cascades, which each instance goes through at most once per
   * level.
   *
   * @return whether due instances remain, that is whether to call again before waiting
   * @throws IllegalStateException when called from the handler
   */
  public boolean advanceTo(long nowMs, int maxInstances, ExpiryHandler handler) {
    if (maxInstances < 1) {
      throw new IllegalArgumentException("maxInstances must be at least 1: " + maxInstances);
    }
    Objects.requireNonNull(handler, "handler");
    checkNotAdvancing("advanceTo");
    advancing = true;
    try {
      if (nowMs > currentTimeMs) {
        currentTimeMs = nowMs;
      }
      long handedOut = 0;
      while (true) {
        handedOut += emitReady(maxInstances - handedOut, handler);
        if (handedOut >= maxInstances) {
          return hasLiveReady() || takeNextDueTick();
        }
        if (!takeNextDueTick()) {
          return false;
        }
      }
    } finally {
      advancing = false;
    }
  }

  /**
   * When the next instance may be due: a lower bound on the earliest pending due time, or {@link
   * Long#MAX_VALUE} when nothing is pending. At or before {@link #currentTimeMs()} means "due now,
   * advance"; after an advance that returned false it is always later than the clock.
   *
   * <p>Exact when the earliest instance is due in the current tick (the wheel then knows the
   * smallest due time there) or is already due. Otherwise it is the start of the earliest non-empty
   * bucket: exact to the tick when that bucket is in level 0 (within {@code tickMs * wheelSize} of
   * the cursor), else the time at which that overflow bucket cascades, earlier than its instances
   * by up to the bucket's width. Cost: a few bitmap words per level, no scan of instances.
   */
  public long nextExpiryMs() {
    if (hasLiveReady()) {
      return pool.dueAtMs(ready.peek());
    }
    if (size == 0) {
      return Long.MAX_VALUE;
    }
    if (!buckets.isEmpty(slotOf(cursorTick))) {
      return Math.max(cursorTick * tickMs, cursorBucketMinDueMs);
    }
    long eventTick = nextEventTick(cursorTick);
    return eventTick == Long.MAX_VALUE ? Long.MAX_VALUE : eventTick * tickMs;
  }

  /**
   * Forgets every pending instance and gives the grown arrays back; the clock stays.
   *
   * @return how many instances were pending
   * @throws IllegalStateException when called from the handler
   */
  public int clear() {
    checkNotAdvancing("clear");
    int discarded = size;
    pool.reset();
    index.reset();
    ready.reset();
    batchIds = new long[INITIAL_BATCH_CAPACITY];
    size = 0;
    cancelledNodes = 0;
    cursorTick = currentTimeMs / tickMs;
    resetBuckets();
    return discarded;
  }

  /**
   * Empties the wheel like {@link #clear} and returns the ids that never fired, in no particular
   * order (like Netty's {@code HashedWheelTimer.stop()}).
   *
   * @throws IllegalStateException when called from the handler
   */
  public long[] drain() {
    checkNotAdvancing("drain");
    long[] ids = new long[size];
    index.copyIds(ids);
    clear();
    return ids;
  }

  /** Pending instances: added, not yet handed out, not removed. */
  public int size() {
    return size;
  }

  public boolean isEmpty() {
    return size == 0;
  }

  /** The wheel's time: the latest {@code nowMs} advanced to, or the start time. */
  public long currentTimeMs() {
    return currentTimeMs;
  }

  public long tickMs() {
    return tickMs;
  }

  public int wheelSize() {
    return wheelSize;
  }

  public int maxPending() {
    return maxPending;
  }

  /**
   * The heap the wheel's arrays take, from their lengths (64-bit JVM, compressed oops): about 46
   * bytes per instance at a million pending. For a gauge; it allocates nothing.
   */
  public long estimatedHeapBytes() {
    return pool.estimatedHeapBytes()
        + buckets.estimatedHeapBytes()
        + index.estimatedHeapBytes()
        + ready.estimatedHeapBytes()
        + 4L * occupiedBuckets.length
        + 8L * (occupied.length + batchIds.length + spanTicks.length)
        + 4L * HeapSizes.ARRAY_HEADER_BYTES
        + 160; // the wheel, pool, buckets, index and ready queue objects themselves
  }

  @Override
  public String toString() {
    return "TimingWheel[tickMs="
        + tickMs
        + ", wheelSize="
        + wheelSize
        + ", maxPending="
        + maxPending
        + ", size="
        + size
        + ", currentTimeMs="
        + currentTimeMs
        + ", levels="
        + levels
        + "]";
  }

  // ---- Placement ----

  /** Links a node into its bucket, relative to the cursor (see the class comment). */
  private void place(int node, long dueAtMs) {
    long dueTick = dueAtMs / tickMs;
    long cursor = cursorTick;
    if (dueTick - cursor < wheelSize) {
      append(0, slotOf(dueTick), node);
      if (dueTick == cursor && dueAtMs < cursorBucketMinDueMs) {
        cursorBucketMinDueMs = dueAtMs;
      }
      return;
    }
    for (int level = 1; ; level++) {
      long span = spanTicks[level];
      long levelTick = dueTick / span;
      if (levelTick - cursor / span < wheelSize) {
        if (level >= levels) {
          addLevels(level + 1);
        }
        append(level, slotOf(levelTick), node);
        return;
      }
    }
  }

  private void append(int level, int slot, int node) {
    if (buckets.append(level * wheelSize + slot, node)) {
      markOccupied(level, slot);
    }
  }

  private void markOccupied(int level, int slot) {
    occupied[level * wordsPerLevel + (slot >>> 6)] |= 1L << slot;
    occupiedBuckets[level]++;
  }

  private void markEmpty(int level, int slot) {
    occupied[level * wordsPerLevel + (slot >>> 6)] &= ~(1L << slot);
    occupiedBuckets[level]--;
  }

  private int slotOf(long levelTick) {
    return (int) (wheelSizeIsPowerOfTwo ? levelTick & (wheelSize - 1) : levelTick % wheelSize);
  }

  // ---- Expiry ----

  /**
   * Moves the instances of the next tick that has due ones into the ready queue, cascading and
   * skipping empty buckets on the way; false when nothing more is due at the current time.
   */
  private boolean takeNextDueTick() {
    long nowTick = currentTimeMs / tickMs;
    while (true) {
      if (takeDueFromCursorBucket() > 0) {
        return true;
      }
      if (cursorTick >= nowTick) {
        return false;
      }
      long eventTick = nextEventTick(cursorTick);
      if (eventTick > nowTick) {
        moveCursor(nowTick); // nothing to expire or cascade in between
        return false;
      }
      moveCursor(eventTick);
      cascadeAt(eventTick);
    }
  }

  /**
   * Moves the due instances of the cursor's bucket to the ready queue, sorted, and keeps the rest
   * (due later in the tick) in the bucket; returns how many moved.
   */
  private int takeDueFromCursorBucket() {
    int slot = slotOf(cursorTick);
    long nowMs = currentTimeMs;
    if (buckets.isEmpty(slot) || nowMs < cursorBucketMinDueMs) {
      return 0;
    }
    boolean wholeTickDue = nowMs - cursorTick * tickMs >= tickMs - 1;
    int mark = ready.mark();
    int moved = 0;
    long minLeftMs = Long.MAX_VALUE;
    detach(0, slot);
    for (int node = nextLiveDetached(); node >= 0; node = nextLiveDetached()) {
      long dueAtMs = pool.dueAtMs(node);
      if (wholeTickDue || dueAtMs <= nowMs) {
        ready.append(node);
        moved++;
      } else {
        append(0, slot, node); // into fresh chunks: the detached ones are freed once read
        if (dueAtMs < minLeftMs) {
          minLeftMs = dueAtMs;
        }
      }
    }
    cursorBucketMinDueMs = minLeftMs;
    ready.sortFrom(mark, pool);
    return moved;
  }

  private void moveCursor(long tick) {
    cursorTick = tick;
    cursorBucketMinDueMs = buckets.isEmpty(slotOf(tick)) ? Long.MAX_VALUE : UNKNOWN;
  }

  /** Cascades every overflow bucket that starts at {@code tick}, coarsest first. */
  private void cascadeAt(long tick) {
    for (int level = levels - 1; level >= 1; level--) {
      long span = spanTicks[level];
      if (occupiedBuckets[level] != 0 && tick % span == 0) {
        cascade(level, slotOf(tick / span));
      }
    }
  }

  private void cascade(int level, int slot) {
    if (buckets.isEmpty(level * wheelSize + slot)) {
      return;
    }
    detach(level, slot);
    for (int node = nextLiveDetached(); node >= 0; node = nextLiveDetached()) {
      place(node, pool.dueAtMs(node)); // always into a finer level
    }
  }

  /** Frees every cancelled node still in a bucket (cancelled ones in the ready queue go soon). */
  private void sweepCancelled() {
    for (int level = 0; level < levels; level++) {
      for (int slot = 0; slot < wheelSize; slot++) {
        if (buckets.isEmpty(level * wheelSize + slot)) {
          continue;
        }
        detach(level, slot);
        for (int node = nextLiveDetached(); node >= 0; node = nextLiveDetached()) {
          append(level, slot, node);
        }
      }
    }
  }

  /** Empties a bucket for reading through {@link #nextLiveDetached}. */
  private void detach(int level, int slot) {
    markEmpty(level, slot);
    buckets.detach(level * wheelSize + slot);
  }

  /**
   * The next node of the bucket last detached that is not cancelled, or -1 once all are read; frees
   * the cancelled ones it passes.
   */
  private int nextLiveDetached() {
    int node = buckets.nextDetached();
    while (node >= 0 && pool.state(node) == NodePool.CANCELLED) {
      freeCancelled(node);
      node = buckets.nextDetached();
    }
    return node;
  }

  private void freeCancelled(int node) {
    pool.free(node);
    cancelledNodes--;
  }

  /**
   * The earliest tick after {@code cursor} at which a non-empty bucket expires (level 0) or
   * cascades (levels above), or {@link Long#MAX_VALUE}. A level's first bucket boundary after the
   * cursor is never before the level below's, so the search stops at the first level that cannot
   * beat what was found.
   */
  private long nextEventTick(long cursor) {
    long best = Long.MAX_VALUE;
    if (occupiedBuckets[0] != 0) {
      int offset = nextOccupied(0, slotOf(cursor + 1), wheelSize - 1);
      if (offset >= 0) {
        best = cursor + 1 + offset;
      }
    }
    for (int level = 1; level < levels; level++) {
      long span = spanTicks[level];
      long levelTick = cursor / span + 1;
      if (levelTick > best / span) {
        break; // levelTick * span > best, even where the product would overflow
      }
      if (occupiedBuckets[level] == 0) {
        continue;
      }
      int offset = nextOccupied(level, slotOf(levelTick), wheelSize - 1);
      if (offset >= 0) {
        best = Math.min(best, (levelTick + offset) * span);
      }
    }
    return best;
  }

  /**
   * The offset, below {@code count}, of the first occupied bucket of the level from {@code
   * fromSlot} on, wrapping around; -1 when there is none.
   */
  private int nextOccupied(int level, int fromSlot, int count) {
    long[] bits = occupied;
    int base = level * wordsPerLevel;
    int slot = fromSlot;
    int scanned = 0;
    while (scanned < count) {
      int bit = slot & 63;
      int inWord = Math.min(64 - bit, wheelSize - slot);
      long word = bits[base + (slot >>> 6)] >>> bit;
      if (word != 0) {
        int found = Long.numberOfTrailingZeros(word);
        if (found < inWord) {
          int offset = scanned + found;
          return offset < count ? offset : -1;
        }
      }
      scanned += inWord;
      slot += inWord;
      if (slot == wheelSize) {
        slot = 0;
      }
    }
    return -1;
  }

  /** Hands out ready batches until at least {@code budget} instances went; returns how many. */
  private long emitReady(long budget, ExpiryHandler handler) {
    long handedOut = 0;
    while (handedOut < budget && hasLiveReady()) {
      int first = ready.peek();
      long dueAtMs = pool.dueAtMs(first);
      int groupId = pool.groupId(first);
      int count = 0;
      while (!ready.isEmpty()) {
        int node = ready.peek();
        if (pool.state(node) == NodePool.CANCELLED) {
          ready.pop();
          freeCancelled(node);
          continue;
        }
        if (pool.dueAtMs(node) != dueAtMs || pool.groupId(node) != groupId) {
          break;
        }
        ready.pop();
        long instanceId = pool.instanceId(node);
        if (count == batchIds.length) {
          batchIds = Arrays.copyOf(batchIds, count << 1);
        }
        batchIds[count++] = instanceId;
        index.remove(instanceId);
        pool.free(node);
      }
      size -= count;
      handedOut += count;
      // The batch has left the wheel before the handler runs: it may re-add the same ids.
      handler.onExpired(groupId, dueAtMs, batchIds, count);
    }
    return handedOut;
  }

  /** Frees cancelled nodes at the head of the ready queue; whether a live one remains. */
  private boolean hasLiveReady() {
    while (!ready.isEmpty()) {
      int node = ready.peek();
      if (pool.state(node) != NodePool.CANCELLED) {
        return true;
      }
      ready.pop();
      freeCancelled(node);
    }
    return false;
  }

  private void checkNotAdvancing(String operation) {
    if (advancing) {
      throw new IllegalStateException(operation + " must not be called from the expiry handler");
    }
  }

  // ---- Structure ----

  private static long[] spans(int wheelSize) {
    long[] spans = new long[64];
    int count = 0;
    long span = 1;
    while (true) {
      spans[count++] = span;
      if (span > Long.MAX_VALUE / wheelSize) {
        // The top level: any due tick divided by this span is below wheelSize, so it fits.
        return Arrays.copyOf(spans, count);
      }
      span *= wheelSize;
    }
  }

  private void resetBuckets() {
    levels = 0;
    buckets.reset(0);
    occupied = new long[0];
    occupiedBuckets = new int[0];
    addLevels(1);
    cursorBucketMinDueMs = Long.MAX_VALUE;
  }

  private void addLevels(int newLevels) {
    buckets.ensureBuckets(newLevels * wheelSize);
    occupied = Arrays.copyOf(occupied, newLevels * wordsPerLevel);
    occupiedBuckets = Arrays.copyOf(occupiedBuckets, newLevels);
    levels = newLevels;
  }

  // ---- For tests ----

  int levels() {
    return levels;
  }

  int nodeCapacity() {
    return pool.capacity();
  }

  int nodesInUse() {
    return pool.used();
  }

  int indexCapacity() {
    return index.capacity();
  }

  long cursorTick() {
    return cursorTick;
  }

  int cancelledNodes() {
    return cancelledNodes;
  }

  /**
   * Checks every structural invariant; throws {@link IllegalStateException} on the first broken.
   */
  void checkInvariants() {
    long nowTick = currentTimeMs / tickMs;
    if (cursorTick > nowTick) {
      fail("cursor " + cursorTick + " is ahead of the clock's tick " + nowTick);
    }
    int[] counts = new int[2]; // live, cancelled
    for (int level = 0; level < levels; level++) {
      int nonEmpty = 0;
      for (int slot = 0; slot < wheelSize; slot++) {
        int bucket = level * wheelSize + slot;
        boolean bit = (occupied[level * wordsPerLevel + (slot >>> 6)] & (1L << slot)) != 0;
        if (buckets.isEmpty(bucket) == bit) {
          fail("bucket " + level + "/" + slot + " occupancy bit " + bit);
        }
        if (bit) {
          nonEmpty++;
        }
        int bucketLevel = level;
        int bucketSlot = slot;
        buckets.forEach(
            bucket,
            node -> {
              int state = pool.state(node);
              long dueAtMs = pool.dueAtMs(node);
              if (state == NodePool.FREE) {
                fail("free node " + node + " in bucket " + bucketLevel + "/" + bucketSlot);
              }
              if (!validPlacement(dueAtMs, bucketLevel, bucketSlot)) {
                fail(
                    "node due "
                        + dueAtMs
                        + " in bucket "
                        + bucketLevel
                        + "/"
                        + bucketSlot
                        + " at cursor "
                        + cursorTick);
              }
              if (bucketLevel == 0
                  && dueAtMs / tickMs == cursorTick
                  && cursorBucketMinDueMs != UNKNOWN
                  && dueAtMs < cursorBucketMinDueMs) {
                fail("cursor bucket lower bound " + cursorBucketMinDueMs + " above " + dueAtMs);
              }
              if (state == NodePool.LIVE) {
                if (index.nodeAt(indexSlotOf(node)) != node) {
                  fail("node " + node + " not indexed");
                }
                counts[0]++;
              } else {
                counts[1]++;
              }
            });
      }
      if (nonEmpty != occupiedBuckets[level]) {
        fail("level " + level + " counts " + occupiedBuckets[level] + " buckets, has " + nonEmpty);
      }
    }
    int readyLive = 0;
    int readyCancelled = 0;
    for (int node : ready.toArray()) {
      int state = pool.state(node);
      if (state == NodePool.LIVE) {
        readyLive++;
        if (pool.dueAtMs(node) > currentTimeMs) {
          fail("ready node due " + pool.dueAtMs(node) + " after the clock " + currentTimeMs);
        }
      } else if (state == NodePool.CANCELLED) {
        readyCancelled++;
      } else {
        fail("free node " + node + " in the ready queue");
      }
    }
    if (counts[0] + readyLive != size || index.size() != size) {
      fail(
          "size "
              + size
              + " but buckets hold "
              + counts[0]
              + ", ready "
              + readyLive
              + ", index "
              + index.size());
    }
    if (counts[1] + readyCancelled != cancelledNodes) {
      fail("cancelled count " + cancelledNodes + ", found " + (counts[1] + readyCancelled));
    }
    if (pool.used() != size + cancelledNodes) {
      fail("pool uses " + pool.used() + " nodes for " + size + " + " + cancelledNodes);
    }
    index.forEachNode(
        node -> {
          if (pool.state(node) != NodePool.LIVE) {
            fail("index points at node " + node + " in state " + pool.state(node));
          }
        });
  }

  private int indexSlotOf(int node) {
    int slot = index.indexOf(pool.instanceId(node));
    if (slot < 0) {
      fail("id of node " + node + " is not indexed");
    }
    return slot;
  }

  /**
   * Whether an instance may sit in this bucket at the current cursor: the slot is its index at that
   * level, and the index is in the level's live range (level 0: the cursor's tick and the next
   * {@code wheelSize - 1}; above: after the cursor's index, so it cascades in the future).
   */
  private boolean validPlacement(long dueAtMs, int level, int slot) {
    long dueTick = dueAtMs / tickMs;
    long span = spanTicks[level];
    long levelTick = dueTick / span;
    long cursorLevelTick = cursorTick / span;
    if (slotOf(levelTick) != slot) {
      return false;
    }
    long lowest = level == 0 ? cursorLevelTick : cursorLevelTick + 1;
    return levelTick >= lowest && levelTick - cursorLevelTick < wheelSize;
  }

  private static void fail(String message) {
    throw new IllegalStateException("timing wheel invariant broken: " + message);
  }
}
