package dev.ax.ingest;

import dev.ax.common.model.Namespace;
import java.util.HashMap;
import java.util.Map;

/**
 * Each namespace's command rate ({@code AX_MAX_COMMANDS_PER_SECOND_PER_NAMESPACE}): a token bucket
 * per namespace holding at most one second's worth, spent by every command read from its topic. A
 * namespace whose bucket is empty is throttled: ingest pauses its partitions until the bucket has
 * refilled, so its commands wait in Kafka and nothing is refused or lost, and no other namespace
 * waits. A poll may overshoot by one batch; the debt is paid by a longer pause. The default
 * namespace is not throttled. Times are the stage's clock in milliseconds.
 *
 * <p>Not thread-safe: ingest's consumer thread only.
 */
final class NamespaceRate {

  /** A bucket: its tokens at {@code atMs} (negative: a debt). */
  private static final class Bucket {
    double tokens;
    long atMs;

    Bucket(double tokens, long atMs) {
      this.tokens = tokens;
      this.atMs = atMs;
    }
  }

  private final int perSecond;
  private final Map<Namespace, Bucket> buckets = new HashMap<>();

  /**
   * @param perSecond commands a namespace may send per second; 0: no limit
   */
  NamespaceRate(int perSecond) {
    if (perSecond < 0) {
      throw new IllegalArgumentException("perSecond must not be negative: " + perSecond);
    }
    this.perSecond = perSecond;
  }

  /** Spends {@code commands} of {@code namespace}'s bucket at {@code nowMs}. */
  void spend(Namespace namespace, int commands, long nowMs) {
    if (perSecond == 0 || namespace.isDefault()) {
      return;
    }
    Bucket bucket = refilled(namespace, nowMs);
    bucket.tokens -= commands;
  }

  /** Whether {@code namespace} must wait at {@code nowMs}: its bucket is empty or in debt. */
  boolean throttled(Namespace namespace, long nowMs) {
    if (perSecond == 0 || namespace.isDefault()) {
      return false;
    }
    Bucket bucket = buckets.get(namespace);
    return bucket != null && refilled(namespace, nowMs).tokens < 1;
  }

  private Bucket refilled(Namespace namespace, long nowMs) {
    Bucket bucket = buckets.computeIfAbsent(namespace, n -> new Bucket(perSecond, nowMs));
    long elapsedMs = Math.max(0, nowMs - bucket.atMs);
    bucket.tokens = Math.min(perSecond, bucket.tokens + elapsedMs * perSecond / 1000.0);
    bucket.atMs = Math.max(bucket.atMs, nowMs);
    return bucket;
  }
}
