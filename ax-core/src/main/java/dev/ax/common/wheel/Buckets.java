package dev.ax.common.wheel;

import java.util.Arrays;

/**
 * Every bucket of every level as an unrolled list of node numbers: chunks of {@link #CHUNK_INTS}
 * ints (one cache line), the first int linking to the next chunk, the others holding up to {@link
 * #SLOTS} nodes. All chunks live in one int array with a LIFO free list.
 *
 * <p>Why not a linked list through the nodes (Kafka's): walking one is a chain of dependent cache
 * misses, one per node, and a cascade walks a whole bucket. Here the node numbers of a bucket are
 * read in sequence and the nodes themselves are independent loads that the processor overlaps.
 * Appending keeps the order of arrival. A bucket is taken out whole ({@link #detach}) and its
 * chunks are freed while its nodes are placed elsewhere.
 *
 * <p>Memory: 4 bytes per node in full chunks, plus at most one part-filled chunk per non-empty
 * bucket and 12 bytes per bucket of bookkeeping.
 */
final class Buckets {

  static final int CHUNK_INTS = 16;
  static final int SLOTS = CHUNK_INTS - 1;

  private static final int NONE = -1;
  private static final int INITIAL_CHUNKS = 64;

  /** Chunk {@code c} is {@code chunks[16c]} (next chunk or -1) and {@code chunks[16c + 1 ..]}. */
  int[] chunks = new int[INITIAL_CHUNKS * CHUNK_INTS];

  private int freeChunk = NONE;
  private int chunkHighWater;

  private int[] headChunk = new int[0];
  private int[] tailChunk = new int[0];
  private int[] tailCount = new int[0];

  /**
   * The detached list {@link #nextDetached} reads: its last chunk and that chunk's fill, the chunk
   * being read (or -1), the next place in it and its fill.
   */
  private int detachedTailChunk;

  private int detachedTailCount;
  private int readChunk = NONE;
  private int readIndex;
  private int readCount;

  /** Makes room for {@code bucketCount} buckets; new ones are empty. */
  void ensureBuckets(int bucketCount) {
    int old = headChunk.length;
    if (bucketCount <= old) {
      return;
    }
    headChunk = Arrays.copyOf(headChunk, bucketCount);
    tailChunk = Arrays.copyOf(tailChunk, bucketCount);
    tailCount = Arrays.copyOf(tailCount, bucketCount);
    Arrays.fill(headChunk, old, bucketCount, NONE);
    Arrays.fill(tailChunk, old, bucketCount, NONE);
  }

  boolean isEmpty(int bucket) {
    return headChunk[bucket] == NONE;
  }

  /** Appends a node; returns whether the bucket was empty before. */
  boolean append(int bucket, int node) {
    int tail = tailChunk[bucket];
    int count = tailCount[bucket];
    boolean wasEmpty = tail == NONE;
    if (wasEmpty || count == SLOTS) {
      int chunk = allocateChunk();
      if (wasEmpty) {
        headChunk[bucket] = chunk;
      } else {
        chunks[tail * CHUNK_INTS] = chunk;
      }
      tailChunk[bucket] = chunk;
      tail = chunk;
      count = 0;
    }
    chunks[tail * CHUNK_INTS + 1 + count] = node;
    tailCount[bucket] = count + 1;
    return wasEmpty;
  }

  /**
   * Empties the bucket; {@link #nextDetached} then hands out its nodes in order. Appends may come
   * between those calls, to any bucket (this one too): they take fresh chunks, as each detached
   * chunk is freed only once read.
   */
  void detach(int bucket) {
    int head = headChunk[bucket];
    detachedTailChunk = tailChunk[bucket];
    detachedTailCount = tailCount[bucket];
    headChunk[bucket] = NONE;
    tailChunk[bucket] = NONE;
    tailCount[bucket] = 0;
    startReading(head);
  }

  /**
   * The next node of the list last detached, or -1 once all are read. Reads {@link #chunks} anew
   * each time (an append may have grown it) and frees each chunk once its last node is read.
   */
  int nextDetached() {
    if (readIndex == readCount) { // every chunk holds at least one node: one step suffices
      if (readChunk == NONE) {
        return NONE;
      }
      int next = chunks[readChunk * CHUNK_INTS]; // read before freeing this one
      freeChunk(readChunk);
      startReading(next);
      if (next == NONE) {
        return NONE;
      }
    }
    return chunks[readChunk * CHUNK_INTS + 1 + readIndex++];
  }

  private void startReading(int chunk) {
    readChunk = chunk;
    readIndex = 0;
    readCount = chunk == NONE ? 0 : chunk == detachedTailChunk ? detachedTailCount : SLOTS;
  }

  private void freeChunk(int chunk) {
    chunks[chunk * CHUNK_INTS] = freeChunk;
    freeChunk = chunk;
  }

  /** Calls {@code visit} with every node of the bucket, in order (tests, sweeping). */
  void forEach(int bucket, java.util.function.IntConsumer visit) {
    for (int chunk = headChunk[bucket]; chunk != NONE; chunk = chunks[chunk * CHUNK_INTS]) {
      int count = chunk == tailChunk[bucket] ? tailCount[bucket] : SLOTS;
      for (int i = 1; i <= count; i++) {
        visit.accept(chunks[chunk * CHUNK_INTS + i]);
      }
    }
  }

  /** Forgets every bucket and chunk; keeps {@code bucketCount} empty buckets. */
  void reset(int bucketCount) {
    chunks = new int[INITIAL_CHUNKS * CHUNK_INTS];
    freeChunk = NONE;
    startReading(NONE);
    chunkHighWater = 0;
    headChunk = new int[0];
    tailChunk = new int[0];
    tailCount = new int[0];
    ensureBuckets(bucketCount);
  }

  int chunkCapacity() {
    return chunks.length / CHUNK_INTS;
  }

  long estimatedHeapBytes() {
    return 4L * (chunks.length + 3L * headChunk.length) + 4 * HeapSizes.ARRAY_HEADER_BYTES;
  }

  private int allocateChunk() {
    int chunk = freeChunk;
    if (chunk != NONE) {
      freeChunk = chunks[chunk * CHUNK_INTS];
    } else {
      if (chunkHighWater == chunkCapacity()) {
        long grown = (long) chunks.length + (chunks.length >> 1); // by half: slack is heap
        if (grown > Integer.MAX_VALUE - 8) {
          throw new IllegalStateException("bucket chunks cannot grow beyond " + chunks.length);
        }
        chunks = Arrays.copyOf(chunks, (int) grown);
      }
      chunk = chunkHighWater++;
    }
    chunks[chunk * CHUNK_INTS] = NONE;
    return chunk;
  }
}
