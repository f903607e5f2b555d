package dev.ax.dispatcher.claim;

import dev.ax.common.contract.TaskDueEvent;
import dev.ax.dispatcher.store.ClaimedInstance;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;

/**
 * Everything the {@link ClaimLoop} needs from the worker pools, the database and the broker, behind
 * one small interface: the stage wires the real one ({@link StoreDispatcherPort}); unit tests use a
 * fake. Implementations must be safe to call from the claim loop's thread.
 */
public interface DispatcherPort {

  /**
   * Attempts the pool named {@code pool} can take now without queueing beyond its bound; none while
   * the {@code dispatch} switch is off for it, at most one while {@code serial} is on.
   */
  int room(String pool);

  /**
   * Starts reading the specs of those of {@code taskIds} never read before and returns at once, so
   * that the read overlaps the claim; {@link #start} waits for it.
   */
  Future<?> prefetchSpecs(Set<String> taskIds);

  /**
   * Claims those of {@code instanceIds} that are still DISPATCHED and due by {@code nowMs} (one
   * conditional UPDATE) and returns the ones this dispatcher won; the others belong to someone else
   * or are not due yet.
   */
  List<ClaimedInstance> claim(Collection<String> instanceIds, long nowMs);

  /**
   * Hands claimed instances to their pools' runners.
   *
   * @param poolOfInstance the pool each instance was held for; by default its task's group's
   * @param prefetch what {@link #prefetchSpecs} returned for these instances' events
   */
  void start(List<ClaimedInstance> won, Map<String, String> poolOfInstance, Future<?> prefetch);

  /** Sends unclaimed events back to their topics, by the pool they were held for. */
  void handBack(Map<String, List<TaskDueEvent>> byPool, String why);
}
