package dev.ax.dispatcher;

import dev.ax.common.contract.TaskDueEvent;
import dev.ax.common.store.ClaimedInstance;
import dev.ax.common.time.SaturatingMillis;
import dev.ax.dispatcher.run.Bulkheads;
import dev.ax.dispatcher.store.ClaimStore;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;

/**
 * The {@link DispatcherPort} of a running stage: rooms from the {@link Bulkheads}, specs from
 * {@link TaskSpecs}, the claim as one conditional UPDATE with this node as owner and a lease of
 * {@code AX_DISPATCHER_LEASE}, runs through the {@link RunStarter}, hand-back through Kafka. Safe
 * to call from any one thread at a time; the claim loop is its only caller.
 */
final class StoreDispatcherPort implements DispatcherPort {

  private final Bulkheads bulkheads;
  private final TaskSpecs specs;
  private final ClaimStore claims;
  private final String owner;
  private final Duration lease;
  private final RunStarter runs;
  private final HandBack handBack;

  StoreDispatcherPort(
      Bulkheads bulkheads,
      TaskSpecs specs,
      ClaimStore claims,
      String owner,
      Duration lease,
      RunStarter runs,
      HandBack handBack) {
    this.bulkheads = bulkheads;
    this.specs = specs;
    this.claims = claims;
    this.owner = owner;
    this.lease = lease;
    this.runs = runs;
    this.handBack = handBack;
  }

  @Override
  public int room(String pool) {
    return bulkheads.freeCapacity(pool);
  }

  @Override
  public Future<?> prefetchSpecs(Set<String> taskIds) {
    return specs.prefetch(taskIds);
  }

  @Override
  public List<ClaimedInstance> claim(Collection<String> instanceIds, long nowMs) {
    return claims.claim(instanceIds, owner, SaturatingMillis.atMs(nowMs, lease), nowMs);
  }

  @Override
  public void start(
      List<ClaimedInstance> won, Map<String, String> poolOfInstance, Future<?> prefetch) {
    runs.start(won, poolOfInstance, prefetch);
  }

  @Override
  public void handBack(Map<String, List<TaskDueEvent>> byPool, String why) {
    handBack.send(byPool, why);
  }
}
