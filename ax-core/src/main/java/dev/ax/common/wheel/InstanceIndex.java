package dev.ax.common.wheel;

import java.util.Arrays;

/**
 * Pending instance id to node: an open-addressing hash table with linear probing.
 *
 * <p>A slot is one long: the high 32 bits of the id's hash beside the node number. Probing compares
 * hashes and reads a node (a cache miss at a million pending) only on a hash match, which is nearly
 * always the id itself; removal shifts the rest of the probe run back (no tombstones, so lookups do
 * not slow down with churn) and finds each entry's home slot from its stored hash, without reading
 * nodes. The hash is Fibonacci hashing ({@code id * 2^64/phi}), which spreads sequential database
 * keys well; the home slot is {@code hash * capacity >>> 32}, so the capacity need not be a power
 * of two: the table grows by half when 60% full (longer probe runs cost more than the memory
 * saved), 13 to 20 bytes per instance, 16 at a million.
 */
final class InstanceIndex {

  private static final long EMPTY = -1L; // node -1: never a real entry
  private static final long FIBONACCI = 0x9E37_79B9_7F4A_7C15L;
  private static final int MIN_CAPACITY = 16;
  private static final int MAX_LOAD_PERCENT = 60;
  private static final long NODE_MASK = 0xFFFF_FFFFL;

  private final NodePool pool;
  private long[] slots;
  private int capacity;
  private int size;
  private int growAt;

  InstanceIndex(NodePool pool) {
    this.pool = pool;
    allocate(MIN_CAPACITY);
  }

  /**
   * The slot holding {@code instanceId} (0 or more), or {@code ~slot} of the empty slot where it
   * would go (negative). The latter stays valid for {@link #insertAt} until the table changes.
   */
  int indexOf(long instanceId) {
    long hash = hash(instanceId);
    long[] table = slots;
    int slot = home(hash);
    while (true) {
      long entry = table[slot];
      if (entry == EMPTY) {
        return ~slot;
      }
      if ((entry >>> 32) == hash && pool.instanceId((int) entry) == instanceId) {
        return slot;
      }
      if (++slot == capacity) {
        slot = 0;
      }
    }
  }

  int nodeAt(int slot) {
    return (int) slots[slot];
  }

  /** Puts the id's node in the empty slot {@link #indexOf} returned (as {@code ~slot}). */
  void insertAt(int emptySlot, long instanceId, int node) {
    slots[emptySlot] = (hash(instanceId) << 32) | node;
    if (++size > growAt) {
      rehash((int) Math.min(Integer.MAX_VALUE - 8L, capacity + ((long) capacity >> 1)));
    }
  }

  /** Removes the id; returns its node, or -1 when it was not there. */
  int remove(long instanceId) {
    int slot = indexOf(instanceId);
    if (slot < 0) {
      return -1;
    }
    int node = (int) slots[slot];
    removeAt(slot);
    return node;
  }

  int size() {
    return size;
  }

  int capacity() {
    return capacity;
  }

  /** Copies every indexed id into {@code into[0, size)}. */
  void copyIds(long[] into) {
    int count = 0;
    for (long entry : slots) {
      if (entry != EMPTY) {
        into[count++] = pool.instanceId((int) entry);
      }
    }
  }

  /** Calls {@code check} with every indexed node (tests: invariants). */
  void forEachNode(java.util.function.IntConsumer check) {
    for (long entry : slots) {
      if (entry != EMPTY) {
        check.accept((int) entry);
      }
    }
  }

  void reset() {
    allocate(MIN_CAPACITY);
  }

  long estimatedHeapBytes() {
    return 8L * slots.length + HeapSizes.ARRAY_HEADER_BYTES;
  }

  /** The high 32 bits of the Fibonacci hash, as an unsigned value. */
  private static long hash(long instanceId) {
    return (instanceId * FIBONACCI) >>> 32;
  }

  private int home(long hash) {
    return (int) ((hash * capacity) >>> 32);
  }

  /** Backward-shift deletion: pulls later members of the probe run into the hole. */
  private void removeAt(int slot) {
    long[] table = slots;
    int hole = slot;
    int i = slot;
    while (true) {
      if (++i == capacity) {
        i = 0;
      }
      long entry = table[i];
      if (entry == EMPTY) {
        break;
      }
      int home = home(entry >>> 32);
      // The entry may fill the hole when the hole lies on its probe path: home .. hole .. i.
      if (distance(home, i) >= distance(hole, i)) {
        table[hole] = entry;
        hole = i;
      }
    }
    table[hole] = EMPTY;
    size--;
  }

  /** Slots from {@code from} forward to {@code to}, wrapping around. */
  private int distance(int from, int to) {
    int d = to - from;
    return d < 0 ? d + capacity : d;
  }

  private void rehash(int newCapacity) {
    long[] old = slots;
    allocate(newCapacity);
    for (long entry : old) {
      if (entry != EMPTY) {
        int slot = home(entry >>> 32);
        while (slots[slot] != EMPTY) {
          if (++slot == capacity) {
            slot = 0;
          }
        }
        slots[slot] = entry;
        size++;
      }
    }
  }

  private void allocate(int newCapacity) {
    slots = new long[newCapacity];
    Arrays.fill(slots, EMPTY);
    capacity = newCapacity;
    size = 0;
    growAt = (int) (newCapacity * MAX_LOAD_PERCENT / 100L);
  }
}
