package dev.ax.dispatcher.claim;

import dev.ax.common.contract.TaskDueEvent;
import dev.ax.dispatcher.lease.RunLeases;
import dev.ax.dispatcher.run.Bulkheads;
import dev.ax.dispatcher.store.ClaimedInstance;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * The {@link DispatcherPort} of a running stage: rooms from the {@link Bulkheads}, specs from
 * {@link TaskSpecs}, the claim as one conditional UPDATE with this node as owner and a lease of
 * {@code AX_DISPATCHER_LEASE} ({@link RunLeases}), runs through the {@link RunStarter}, hand-back
 * through Kafka. Safe to call from any one thread at a time; the claim loop is its only caller.
 */
public record StoreDispatcherPort(
    Bulkheads bulkheads,
    TaskSpecs specs,
    RunLeases leases,
    RunStarter runs,
    HandBack handBacks,
    Predicate<String> dispatching,
    BooleanSupplier serial)
    implements DispatcherPort {

  /**
   * No room at all while the {@code dispatch} switch is off for the pool; while {@code serial} is
   * on, room for one attempt only when none is in flight in the pool. The claim loop is the only
   * caller and starts what it claims before it asks again, so the count it reads is current.
   */
  @Override
  public int room(String pool) {
    if (!dispatching.test(pool)) {
      return 0;
    }
    int free = bulkheads.freeCapacity(pool);
    return serial.getAsBoolean() ? Math.min(free, bulkheads.inFlight(pool) == 0 ? 1 : 0) : free;
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
