package dev.ax.dispatcher;

import dev.ax.common.contract.TaskDueEvent;
import dev.ax.common.store.ClaimedInstance;
import dev.ax.dispatcher.run.Bulkheads;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.function.Predicate;

/**
 * The {@link DispatcherPort} of a running stage: rooms from the {@link Bulkheads}, specs from
 * {@link TaskSpecs}, the claim as one conditional UPDATE with this node as owner and a lease of
 * {@code AX_DISPATCHER_LEASE} ({@link RunLeases}), runs through the {@link RunStarter}, hand-back
 * through Kafka. Safe to call from any one thread at a time; the claim loop is its only caller.
 */
record StoreDispatcherPort(
    Bulkheads bulkheads,
    TaskSpecs specs,
    RunLeases leases,
    RunStarter runs,
    HandBack handBacks,
    Predicate<String> dispatching)
    implements DispatcherPort {

  /** No room at all while the {@code dispatch} switch is off for the pool. */
  @Override
  public int room(String pool) {
    return dispatching.test(pool) ? bulkheads.freeCapacity(pool) : 0;
  }

  @Override
  public boolean dispatching(String pool) {
    return dispatching.test(pool);
  }

  @Override
  public Future<?> prefetchSpecs(Set<String> taskIds) {
    return specs.prefetch(taskIds);
  }

  @Override
  public List<ClaimedInstance> claim(Collection<String> instanceIds, long nowMs) {
    return leases.claim(instanceIds, nowMs);
  }

  @Override
  public void start(
      List<ClaimedInstance> won, Map<String, String> poolOfInstance, Future<?> prefetch) {
    runs.start(won, poolOfInstance, prefetch);
  }

  @Override
  public void handBack(Map<String, List<TaskDueEvent>> byPool, String why) {
    handBacks.send(byPool, why);
  }
}
