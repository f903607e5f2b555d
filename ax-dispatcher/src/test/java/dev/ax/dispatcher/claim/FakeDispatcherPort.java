package dev.ax.dispatcher.claim;

import dev.ax.common.contract.TaskDueEvent;
import dev.ax.common.store.StoreException;
import dev.ax.dispatcher.store.ClaimedInstance;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;

/**
 * A {@link DispatcherPort} over maps, for unit tests of the claim loop's logic: rows that are
 * DISPATCHED until claimed (a claim wins only rows due by its time, as the real UPDATE), pools with
 * a settable room that each start uses up. Synchronized, so a test may run the loop's own thread.
 */
final class FakeDispatcherPort implements DispatcherPort {

  record Claim(List<String> instanceIds, long nowMs) {}

  record Started(String instanceId, String pool) {}

  private final Map<String, Long> dispatchedDueAtMs = new LinkedHashMap<>();
  private final Map<String, Integer> room = new HashMap<>();
  final List<Claim> claims = new ArrayList<>();
  final List<Started> started = new ArrayList<>();
  final Map<String, List<TaskDueEvent>> handedBack = new HashMap<>();
  final List<String> handBackReasons = new ArrayList<>();
  boolean failNextClaim;

  /** Runs inside the next claim's round trip, e.g. a stop arriving meanwhile. */
  Runnable onClaim = () -> {};

  /** Runs at the start of every start, e.g. a slow spec read. */
  volatile Runnable onStart = () -> {};

  /**
   * Makes every start count {@code entered} down and then wait until {@code release} opens, as a
   * spec read slower than the test's stop would.
   */
  void holdStarts(CountDownLatch entered, CountDownLatch release) {
    onStart =
        () -> {
          entered.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        };
  }

  /** A DISPATCHED row for {@code event}, claimable from its due time on. */
  synchronized TaskDueEvent dispatched(TaskDueEvent event) {
    dispatchedDueAtMs.put(event.instanceId(), event.dueAtMs());
    return event;
  }

  synchronized void setRoom(String pool, int attempts) {
    room.put(pool, attempts);
  }

  synchronized List<String> startedIds() {
    return started.stream().map(Started::instanceId).toList();
  }

  @Override
  public synchronized int room(String pool) {
    return room.getOrDefault(pool, 0);
  }

  /** The task ids of every spec prefetch, in order. */
  final List<Set<String>> prefetched = new ArrayList<>();

  @Override
  public synchronized Future<?> prefetchSpecs(Set<String> taskIds) {
    prefetched.add(Set.copyOf(taskIds));
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public synchronized List<ClaimedInstance> claim(Collection<String> instanceIds, long nowMs) {
    claims.add(new Claim(List.copyOf(instanceIds), nowMs));
    onClaim.run();
    onClaim = () -> {};
    if (failNextClaim) {
      failNextClaim = false;
      throw new StoreException("database away", null);
    }
    List<ClaimedInstance> won = new ArrayList<>();
    for (String id : instanceIds) {
      Long dueAtMs = dispatchedDueAtMs.get(id);
      if (dueAtMs != null && dueAtMs <= nowMs) {
        dispatchedDueAtMs.remove(id);
        won.add(new ClaimedInstance(id, "task", 1, 1, dueAtMs, nowMs, "trace", 0, 0, null, 0));
      }
    }
    return won;
  }

  @Override
  public void start(
      List<ClaimedInstance> won, Map<String, String> poolOfInstance, Future<?> prefetch) {
    onStart.run(); // outside this fake's lock, so a test can read it meanwhile
    startNow(won, poolOfInstance);
  }

  private synchronized void startNow(
      List<ClaimedInstance> won, Map<String, String> poolOfInstance) {
    for (ClaimedInstance instance : won) {
      String pool = poolOfInstance.get(instance.instanceId());
      started.add(new Started(instance.instanceId(), pool));
      room.merge(pool, -1, Integer::sum);
    }
  }

  @Override
  public synchronized void handBack(Map<String, List<TaskDueEvent>> byPool, String why) {
    byPool.forEach(
        (pool, events) -> handedBack.computeIfAbsent(pool, p -> new ArrayList<>()).addAll(events));
    handBackReasons.add(why);
  }
}
