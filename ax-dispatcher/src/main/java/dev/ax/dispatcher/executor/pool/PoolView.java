package dev.ax.dispatcher.executor.pool;

import dev.ax.common.model.EndpointState;
import dev.ax.common.model.PoolStrategy;
import dev.ax.common.store.PoolStore;
import java.util.List;

/**
 * One executor pool as a dispatcher last read it: its strategy, how long an endpoint stays online
 * after a heartbeat, and its endpoints in registration order. Immutable.
 */
public record PoolView(
    String name, PoolStrategy strategy, long offlineAfterMs, List<PoolStore.Endpoint> endpoints) {

  public PoolView {
    endpoints = List.copyOf(endpoints);
  }

  /**
   * The endpoints that take new runs at {@code nowMs}: ACTIVE and online, in registration order.
   */
  public List<String> liveUrls(long nowMs) {
    return endpoints.stream()
        .filter(e -> e.state() == EndpointState.ACTIVE && e.online(nowMs, offlineAfterMs))
        .map(PoolStore.Endpoint::baseUrl)
        .toList();
  }
}
