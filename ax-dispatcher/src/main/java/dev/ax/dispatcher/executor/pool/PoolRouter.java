package dev.ax.dispatcher.executor.pool;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Picks the endpoints of a pool run, in the order to try them: the live endpoints (ACTIVE,
 * heartbeat within the pool's offline-after; a DRAINING or offline one gets no new run) ordered by
 * the pool's strategy, the first being the one the strategy picks and the rest where a failed
 * connect goes next:
 *
 * <ul>
 *   <li>ROUND_ROBIN: this dispatcher's turn counter per pool picks the first; the others follow in
 *       registration order after it.
 *   <li>CONSISTENT_HASH: the task id on a {@link HashRing} of the live endpoints, then round the
 *       ring; a task keeps its endpoint while that endpoint lives.
 *   <li>LEAST_BUSY: fewest of this dispatcher's calls in flight first, ties taken in turn (as
 *       ROUND_ROBIN), so an idle pool's runs spread too.
 *   <li>FAILOVER: registration order.
 * </ul>
 *
 * Endpoints this dispatcher found unreachable lately ({@link SuspectEndpoints}) go last, in the
 * same order. Time is passed in ({@code nowMs}), so the logic is pure over its state.
 *
 * <p>Thread-safe: turn counters are atomics in a concurrent map; the last ring built per pool is
 * kept in a concurrent map and rebuilt when the live endpoints differ.
 */
public final class PoolRouter {

  private final InFlightCalls inFlight;
  private final SuspectEndpoints suspects;
  private final ConcurrentHashMap<String, AtomicLong> turns = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, HashRing> rings = new ConcurrentHashMap<>();

  PoolRouter(InFlightCalls inFlight, SuspectEndpoints suspects) {
    this.inFlight = inFlight;
    this.suspects = suspects;
  }

  /** The base URLs to try for a run of {@code taskId} in {@code pool}, best first; may be empty. */
  public List<String> route(PoolView pool, String taskId, long nowMs) {
    List<String> live = pool.liveUrls(nowMs);
    if (live.isEmpty()) {
      return List.of();
    }
    List<String> ordered =
        switch (pool.strategy()) {
          case ROUND_ROBIN -> rotated(live, turn(pool.name(), live.size()));
          case CONSISTENT_HASH -> ring(pool.name(), live).order(taskId);
          case LEAST_BUSY -> leastBusy(pool.name(), rotated(live, turn(pool.name(), live.size())));
          case FAILOVER -> live;
        };
    List<String> healthy = new ArrayList<>(ordered.size());
    List<String> suspect = new ArrayList<>();
    for (String url : ordered) {
      (suspects.suspect(pool.name(), url, nowMs) ? suspect : healthy).add(url);
    }
    healthy.addAll(suspect);
    return healthy;
  }

  private int turn(String pool, int size) {
    long turn = turns.computeIfAbsent(pool, p -> new AtomicLong()).getAndIncrement();
    return (int) Math.floorMod(turn, (long) size);
  }

  private static List<String> rotated(List<String> urls, int first) {
    List<String> rotated = new ArrayList<>(urls.size());
    for (int i = 0; i < urls.size(); i++) {
      rotated.add(urls.get((first + i) % urls.size()));
    }
    return rotated;
  }

  private HashRing ring(String pool, List<String> live) {
    return rings.compute(
        pool, (p, ring) -> ring != null && ring.urls().equals(live) ? ring : new HashRing(live));
  }

  private List<String> leastBusy(String pool, List<String> live) {
    List<String> sorted = new ArrayList<>(live);
    // A stable sort: equal counts keep their turn order.
    sorted.sort(Comparator.comparingInt(url -> inFlight.count(pool, url)));
    return sorted;
  }
}
