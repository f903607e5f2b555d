package dev.ax.common.wheel;

import java.util.Arrays;

/**
 * The wheel's instances, three longs a node in one array (24 bytes, no object per instance): node
 * {@code n} is {@code words[3n]} the instance id, {@code words[3n + 1]} the due time, and {@code
 * words[3n + 2]} the group id (high half) and the node's state (low half). Keeping a node's fields
 * side by side means one cache line per visit, which is what a timer at a million pending is bound
 * by; the buckets refer to nodes by number (see {@link Buckets}).
 *
 * <p>Freed nodes form a LIFO free list through the id word, so a busy wheel keeps reusing the same,
 * cache-warm nodes. The array grows by doubling up to {@code softMaxCapacity} (the wheel's {@code
 * maxPending}), then by an eighth: cancelled nodes are freed lazily, so the wheel may hold a few
 * more nodes than pending instances. Callers must not keep {@link #words} across {@link #allocate}.
 */
final class NodePool {

  static final int WORDS = 3;

  /** Pending: in a bucket or in the ready queue. */
  static final int LIVE = 0;

  /** Removed while in a bucket or the ready queue; freed when the wheel reaches it. */
  static final int CANCELLED = 1;

  /** On the free list. */
  static final int FREE = 2;

  private static final int END_OF_FREE_LIST = -1;
  private static final long GROUP_MASK = 0xFFFF_FFFF_0000_0000L;

  long[] words;

  private final int initialCapacity;
  private final int softMaxCapacity;
  private int freeHead = END_OF_FREE_LIST;
  private int highWater;
  private int used;

  NodePool(int initialCapacity, int softMaxCapacity) {
    this.initialCapacity = initialCapacity;
    this.softMaxCapacity = softMaxCapacity;
    words = new long[initialCapacity * WORDS];
  }

  /** Takes a node for a live instance. */
  int allocate(long instanceId, int groupId, long dueAtMs) {
    int node;
    if (freeHead != END_OF_FREE_LIST) {
      node = freeHead;
      freeHead = (int) words[node * WORDS];
    } else {
      if (highWater == capacity()) {
        grow();
      }
      node = highWater++;
    }
    int at = node * WORDS;
    long[] w = words;
    w[at] = instanceId;
    w[at + 1] = dueAtMs;
    w[at + 2] = ((long) groupId << 32) | LIVE;
    used++;
    return node;
  }

  void free(int node) {
    int at = node * WORDS;
    words[at] = freeHead;
    words[at + 2] = FREE;
    freeHead = node;
    used--;
  }

  long instanceId(int node) {
    return words[node * WORDS];
  }

  long dueAtMs(int node) {
    return words[node * WORDS + 1];
  }

  int groupId(int node) {
    return (int) (words[node * WORDS + 2] >>> 32);
  }

  int state(int node) {
    return (int) words[node * WORDS + 2];
  }

  void setState(int node, int state) {
    int at = node * WORDS + 2;
    words[at] = (words[at] & GROUP_MASK) | state;
  }

  /** Forgets every node and shrinks back to the initial capacity. */
  void reset() {
    words = new long[initialCapacity * WORDS];
    freeHead = END_OF_FREE_LIST;
    highWater = 0;
    used = 0;
  }

  int used() {
    return used;
  }

  int capacity() {
    return words.length / WORDS;
  }

  long estimatedHeapBytes() {
    return 8L * words.length + HeapSizes.ARRAY_HEADER_BYTES;
  }

  private void grow() {
    int capacity = capacity();
    long wanted =
        capacity < softMaxCapacity
            ? Math.min(2L * capacity, softMaxCapacity)
            : capacity + Math.max(16, capacity >> 3);
    if (wanted * WORDS > Integer.MAX_VALUE - 8) {
      throw new IllegalStateException("node pool cannot grow beyond " + capacity + " nodes");
    }
    words = Arrays.copyOf(words, (int) wanted * WORDS);
  }
}
