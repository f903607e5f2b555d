package dev.ax.dispatcher.executor.pool;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A consistent-hash ring of endpoints: each endpoint stands at {@link #VIRTUAL_NODES} points of a
 * 64-bit ring (the hash of {@code url#i}), and a key belongs to the first point at or after its own
 * hash, going round. When an endpoint leaves, only the keys of its points move (each to the next
 * point's endpoint, spread over the others by the virtual nodes); every other key keeps its
 * endpoint. When one joins, it takes about 1/n of the keys, from every other endpoint alike.
 *
 * <p>Example with 3 endpoints A, B, C: a task id hashing between a point of B and the next point
 * (of A) goes to A; if A leaves, that task id goes on to the point after, B's or C's, while task
 * ids of B's and C's points do not move.
 *
 * <p>The hash is 64-bit FNV-1a finished by SplitMix64's mixer: stable across JVMs and releases (so
 * every dispatcher picks the same endpoint for a task id), and well spread. Immutable; thread-safe.
 */
final class HashRing {

  /** Points per endpoint: enough to spread keys within a few percent for a handful of endpoints. */
  static final int VIRTUAL_NODES = 128;

  private final List<String> urls;
  private final long[] points;
  private final int[] owners;

  /** The ring of {@code urls} (distinct). */
  HashRing(List<String> urls) {
    this.urls = List.copyOf(urls);
    int n = this.urls.size() * VIRTUAL_NODES;
    long[][] pairs = new long[n][];
    for (int e = 0; e < this.urls.size(); e++) {
      for (int v = 0; v < VIRTUAL_NODES; v++) {
        pairs[e * VIRTUAL_NODES + v] = new long[] {hash(this.urls.get(e) + "#" + v), e};
      }
    }
    // Ties (equal hashes) are broken by endpoint index: every dispatcher orders alike.
    Arrays.sort(
        pairs,
        (a, b) -> a[0] != b[0] ? Long.compareUnsigned(a[0], b[0]) : Long.compare(a[1], b[1]));
    this.points = new long[n];
    this.owners = new int[n];
    for (int i = 0; i < n; i++) {
      points[i] = pairs[i][0];
      owners[i] = (int) pairs[i][1];
    }
  }

  /** The endpoints this ring holds. */
  List<String> urls() {
    return urls;
  }

  /**
   * The endpoints for {@code key}: its own first, then each next distinct endpoint going round
   * (where its runs fail over to). Empty for an empty ring.
   */
  List<String> order(String key) {
    if (points.length == 0) {
      return List.of();
    }
    long h = hash(key);
    int start = firstAtOrAfter(h);
    Set<String> order = new LinkedHashSet<>();
    for (int i = 0; i < points.length && order.size() < urls.size(); i++) {
      order.add(urls.get(owners[(start + i) % points.length]));
    }
    return new ArrayList<>(order);
  }

  private int firstAtOrAfter(long h) {
    int low = 0;
    int high = points.length;
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (Long.compareUnsigned(points[mid], h) < 0) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return low == points.length ? 0 : low;
  }

  /** FNV-1a 64 of the UTF-8 bytes, then SplitMix64's finalizer. */
  static long hash(String text) {
    long h = 0xcbf29ce484222325L;
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    h = (h ^ (h >>> 30)) * 0xbf58476d1ce4e5b9L;
    h = (h ^ (h >>> 27)) * 0x94d049bb133111ebL;
    return h ^ (h >>> 31);
  }
}
