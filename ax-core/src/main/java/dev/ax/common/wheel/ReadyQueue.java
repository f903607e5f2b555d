package dev.ax.common.wheel;

import java.util.Arrays;

/**
 * Nodes taken out of the wheel because they are due, in firing order, waiting to be handed to the
 * expiry handler. It exists so that {@code advanceTo} can stop after {@code maxInstances} and go on
 * where it stopped: everything in it is already due, so it only ever grows at the tail (one tick's
 * bucket at a time, sorted) and shrinks at the head.
 *
 * <p>Each appended segment is sorted by (due time, group) with a stable merge sort, so ids of one
 * batch keep the order in which they reached the bucket. Segments come from successive ticks, so
 * the whole queue stays sorted.
 */
final class ReadyQueue {

  private static final int INITIAL_CAPACITY = 64;
  private static final int INSERTION_SORT_MAX = 24;

  private int[] nodes = new int[INITIAL_CAPACITY];
  private int[] scratch = new int[0];
  private int head;
  private int tail;

  boolean isEmpty() {
    return head == tail;
  }

  int size() {
    return tail - head;
  }

  int peek() {
    return nodes[head];
  }

  void pop() {
    if (++head == tail) {
      head = 0;
      tail = 0;
    }
  }

  /** Where the next appended node goes; pass it to {@link #sortFrom} after appending a segment. */
  int mark() {
    return tail;
  }

  void append(int node) {
    if (tail == nodes.length) {
      makeRoom();
    }
    nodes[tail++] = node;
  }

  /**
   * Sorts the nodes appended since {@code mark} by (due time, group), keeping equal ones in order.
   */
  void sortFrom(int mark, NodePool pool) {
    int from = mark;
    if (tail - from < 2) {
      return;
    }
    long[] words = pool.words;
    if (isSorted(from, tail, words)) {
      return;
    }
    int length = tail - from;
    if (scratch.length < length) {
      scratch = new int[Math.max(length, scratch.length + (scratch.length >> 1))];
    }
    mergeSort(nodes, from, tail, scratch, words);
  }

  /** The ready nodes (tests, drain). */
  int[] toArray() {
    return Arrays.copyOfRange(nodes, head, tail);
  }

  void reset() {
    nodes = new int[INITIAL_CAPACITY];
    scratch = new int[0];
    head = 0;
    tail = 0;
  }

  long estimatedHeapBytes() {
    return 4L * (nodes.length + scratch.length) + 2 * HeapSizes.ARRAY_HEADER_BYTES;
  }

  private void makeRoom() {
    // The wheel appends only to an empty queue (head is 0), so growing is the only way to make room
    // and a mark stays valid.
    nodes = Arrays.copyOf(nodes, nodes.length << 1);
  }

  private boolean isSorted(int from, int to, long[] words) {
    for (int i = from + 1; i < to; i++) {
      if (compare(nodes[i - 1], nodes[i], words) > 0) {
        return false;
      }
    }
    return true;
  }

  /** By due time, then group: the group is the high half of the node's third word. */
  private static int compare(int a, int b, long[] words) {
    int atA = a * NodePool.WORDS;
    int atB = b * NodePool.WORDS;
    int byDue = Long.compare(words[atA + 1], words[atB + 1]);
    return byDue != 0
        ? byDue
        : Integer.compare((int) (words[atA + 2] >>> 32), (int) (words[atB + 2] >>> 32));
  }

  /** Stable top-down merge sort of {@code a[from, to)}, using {@code tmp[0, to - from)}. */
  private static void mergeSort(int[] a, int from, int to, int[] tmp, long[] words) {
    int length = to - from;
    if (length <= INSERTION_SORT_MAX) {
      for (int i = from + 1; i < to; i++) {
        int node = a[i];
        int j = i - 1;
        while (j >= from && compare(a[j], node, words) > 0) {
          a[j + 1] = a[j];
          j--;
        }
        a[j + 1] = node;
      }
      return;
    }
    int middle = (from + to) >>> 1;
    mergeSort(a, from, middle, tmp, words);
    mergeSort(a, middle, to, tmp, words);
    if (compare(a[middle - 1], a[middle], words) <= 0) {
      return;
    }
    System.arraycopy(a, from, tmp, 0, length);
    int left = 0;
    int leftEnd = middle - from;
    int right = leftEnd;
    int out = from;
    while (left < leftEnd && right < length) {
      a[out++] = compare(tmp[right], tmp[left], words) < 0 ? tmp[right++] : tmp[left++];
    }
    while (left < leftEnd) {
      a[out++] = tmp[left++];
    }
    while (right < length) {
      a[out++] = tmp[right++];
    }
  }
}
