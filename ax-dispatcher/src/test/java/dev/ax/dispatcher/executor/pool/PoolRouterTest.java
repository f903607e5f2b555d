package dev.ax.dispatcher.executor.pool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.EndpointState;
import dev.ax.common.model.PoolStrategy;
import dev.ax.common.store.PoolStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PoolRouterTest {

  private static final long NOW_MS = 1_000_000;
  private static final long OFFLINE_AFTER_MS = 10_000;

  private final InFlightCalls inFlight = new InFlightCalls();
  private final SuspectEndpoints suspects = new SuspectEndpoints(5_000);
  private final PoolRouter router = new PoolRouter(inFlight, suspects);

  private static PoolStore.Endpoint live(String url, long registeredAtMs) {
    return new PoolStore.Endpoint("p", url, EndpointState.ACTIVE, registeredAtMs, NOW_MS - 1_000);
  }

  private static PoolView pool(PoolStrategy strategy, PoolStore.Endpoint... endpoints) {
    return new PoolView("p", strategy, OFFLINE_AFTER_MS, List.of(endpoints));
  }

  @Test
  void onlyActiveEndpointsWithARecentHeartbeatAreRouted() {
    PoolView pool =
        pool(
            PoolStrategy.FAILOVER,
            live("http://a", 1),
            new PoolStore.Endpoint("p", "http://drained", EndpointState.DRAINING, 2, NOW_MS),
            new PoolStore.Endpoint(
                "p", "http://silent", EndpointState.ACTIVE, 3, NOW_MS - OFFLINE_AFTER_MS - 1),
            new PoolStore.Endpoint(
                "p", "http://just-online", EndpointState.ACTIVE, 4, NOW_MS - OFFLINE_AFTER_MS));

    assertThat(router.route(pool, "t", NOW_MS)).containsExactly("http://a", "http://just-online");
  }

  @Test
  void failoverTakesRegistrationOrderAndNoLiveEndpointIsAnEmptyRoute() {
    PoolView pool = pool(PoolStrategy.FAILOVER, live("http://b", 1), live("http://a", 2));
    assertThat(router.route(pool, "t1", NOW_MS)).containsExactly("http://b", "http://a");
    assertThat(router.route(pool, "t2", NOW_MS)).containsExactly("http://b", "http://a");
    assertThat(router.route(pool(PoolStrategy.FAILOVER), "t", NOW_MS)).isEmpty();
  }

  @Test
  void roundRobinTakesEachEndpointInTurnAndListsTheOthersAfter() {
    PoolView pool =
        pool(
            PoolStrategy.ROUND_ROBIN,
            live("http://a", 1),
            live("http://b", 2),
            live("http://c", 3));
    List<String> firsts = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      List<String> route = router.route(pool, "t", NOW_MS);
      assertThat(route).hasSize(3).doesNotHaveDuplicates();
      firsts.add(route.get(0));
    }
    assertThat(firsts)
        .containsExactly("http://a", "http://b", "http://c", "http://a", "http://b", "http://c");
  }

  @Test
  void leastBusyPicksTheEndpointWithFewestCallsInFlight() {
    PoolView pool =
        pool(
            PoolStrategy.LEAST_BUSY, live("http://a", 1), live("http://b", 2), live("http://c", 3));
    inFlight.start("p", "http://a");
    inFlight.start("p", "http://a");
    inFlight.start("p", "http://c");
    assertThat(router.route(pool, "t", NOW_MS)).containsExactly("http://b", "http://c", "http://a");
    inFlight.end("p", "http://a");
    inFlight.end("p", "http://a");
    inFlight.start("p", "http://b");
    inFlight.start("p", "http://b");
    assertThat(router.route(pool, "t", NOW_MS).get(0)).isEqualTo("http://a");
  }

  @Test
  void consistentHashKeepsATaskOnItsEndpoint() {
    PoolView pool =
        pool(
            PoolStrategy.CONSISTENT_HASH,
            live("http://a", 1),
            live("http://b", 2),
            live("http://c", 3));
    for (int i = 0; i < 50; i++) {
      String task = "task-" + i;
      List<String> first = router.route(pool, task, NOW_MS);
      assertThat(first).hasSize(3).doesNotHaveDuplicates();
      assertThat(router.route(pool, task, NOW_MS)).isEqualTo(first);
      assertThat(new PoolRouter(new InFlightCalls(), suspects).route(pool, task, NOW_MS))
          .as("another dispatcher picks the same")
          .isEqualTo(first);
    }
  }

  @Test
  void aSuspectEndpointIsTriedLastUntilItsSuspicionExpires() {
    PoolView pool =
        pool(PoolStrategy.FAILOVER, live("http://a", 1), live("http://b", 2), live("http://c", 3));
    suspects.mark("p", "http://a", NOW_MS);
    assertThat(router.route(pool, "t", NOW_MS)).containsExactly("http://b", "http://c", "http://a");
    assertThat(router.route(pool, "t", NOW_MS + 5_000))
        .containsExactly("http://a", "http://b", "http://c");
  }

  @Test
  void theHashRingMovesOnlyTheKeysOfAnEndpointThatLeaves() {
    List<String> four = List.of("http://a", "http://b", "http://c", "http://d");
    HashRing before = new HashRing(four);
    HashRing after = new HashRing(List.of("http://a", "http://b", "http://d"));
    Map<String, Integer> perEndpoint = new HashMap<>();
    int moved = 0;
    int keys = 20_000;
    for (int i = 0; i < keys; i++) {
      String key = "task-" + i;
      String was = before.order(key).get(0);
      String now = after.order(key).get(0);
      perEndpoint.merge(was, 1, Integer::sum);
      if (!was.equals("http://c")) {
        assertThat(now).as("key %s of a staying endpoint", key).isEqualTo(was);
      } else {
        moved++;
        assertThat(now).isEqualTo(before.order(key).get(1)); // its failover endpoint
      }
    }
    assertThat(moved).isEqualTo(perEndpoint.get("http://c"));
    // 128 virtual nodes spread keys within a loose ±30% of the fair share.
    assertThat(perEndpoint.values()).allSatisfy(n -> assertThat(n).isBetween(3_500, 6_500));
  }

  @Test
  void aJoiningEndpointTakesKeysOnlyForItself() {
    HashRing before = new HashRing(List.of("http://a", "http://b", "http://c"));
    HashRing after = new HashRing(List.of("http://a", "http://b", "http://c", "http://n"));
    int taken = 0;
    for (int i = 0; i < 10_000; i++) {
      String key = "k" + i;
      String now = after.order(key).get(0);
      if (now.equals("http://n")) {
        taken++;
      } else {
        assertThat(now).isEqualTo(before.order(key).get(0));
      }
    }
    assertThat(taken).isBetween(1_500, 3_500);
  }
}
