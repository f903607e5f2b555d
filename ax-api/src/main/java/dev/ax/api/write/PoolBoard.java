package dev.ax.api.write;

import dev.ax.api.audit.OperatorLog;
import dev.ax.common.model.EndpointState;
import dev.ax.common.model.PoolNames;
import dev.ax.common.model.PoolStrategy;
import dev.ax.common.store.PoolStore;
import dev.ax.common.store.PoolStore.Change;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The operators' changes to executor pools, shared by the API and {@code ax pool}: create (or set a
 * pool's strategy and offline-after), register, heartbeat, drain, undrain, remove. Each change that
 * changed something writes one operator-log entry (action {@code pool.create}, {@code
 * pool.register}, ...; target {@code <pool>} or {@code <pool> <url>}); a heartbeat of a known
 * endpoint changes only its time and writes none, its first (the registration) writes {@code
 * pool.register}. Names and base URLs are checked here ({@link #urlProblem}): http or https, a
 * host, no credentials, query or fragment; the dispatcher checks the HTTP allow-list, ports and
 * address ranges on every call, as it does for a task's URL.
 *
 * <p>Thread-safe: stateless over the store and the log.
 */
public final class PoolBoard {

  /** The default time an endpoint stays online after its last heartbeat. */
  public static final Duration DEFAULT_OFFLINE_AFTER = Duration.ofSeconds(90);

  /** The shortest and longest offline-after a pool may have. */
  public static final Duration MIN_OFFLINE_AFTER = Duration.ofSeconds(1);

  public static final Duration MAX_OFFLINE_AFTER = Duration.ofDays(1);

  /** An endpoint as shown: its stored row and whether it is online now. */
  public record EndpointView(
      String url,
      EndpointState state,
      long registeredAtMs,
      long lastHeartbeatMs,
      long ageMs,
      boolean online) {}

  /** A pool as shown, with its endpoints in registration order. */
  public record PoolView(
      String name,
      PoolStrategy strategy,
      long offlineAfterMs,
      long createdAtMs,
      long updatedAtMs,
      List<EndpointView> endpoints) {}

  private final PoolStore store;
  private final OperatorLog audit;
  private final LongSupplier clockMs;

  public PoolBoard(PoolStore store, OperatorLog audit, LongSupplier clockMs) {
    this.store = store;
    this.audit = audit;
    this.clockMs = clockMs;
  }

  /** Why {@code name} is no pool name, or null. */
  public static String nameProblem(String name) {
    return PoolNames.validName(name)
        ? null
        : "a pool name must match " + PoolNames.NAME.pattern() + ": " + shown(name);
  }

  /** Why {@code offlineAfter} is out of bounds, or null. */
  public static String offlineAfterProblem(Duration offlineAfter) {
    return offlineAfter.compareTo(MIN_OFFLINE_AFTER) < 0
            || offlineAfter.compareTo(MAX_OFFLINE_AFTER) > 0
        ? "the offline-after must be within " + MIN_OFFLINE_AFTER + " and " + MAX_OFFLINE_AFTER
        : null;
  }

  /** Why {@code url} cannot be an endpoint's base URL, or null. */
  public static String urlProblem(String url) {
    if (url == null || url.isBlank()) {
      return "an endpoint needs its base URL, e.g. http://10.0.0.7:8080";
    }
    if (url.length() > PoolStore.MAX_BASE_URL_LENGTH) {
      return "a base URL is at most " + PoolStore.MAX_BASE_URL_LENGTH + " characters";
    }
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      return "not a URL: " + shown(url);
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
      return "a base URL is http(s)://host[:port][/path]: " + shown(url);
    }
    if (uri.getRawUserInfo() != null) {
      return "a base URL must not carry credentials (user:password@)";
    }
    if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
      return "a base URL has no query or fragment (a task's path may have a query): " + shown(url);
    }
    return null;
  }

  /** {@code url} as stored: without a trailing {@code /}, so base + path has one. */
  public static String normalized(String url) {
    String stripped = url.strip();
    while (stripped.endsWith("/")) {
      stripped = stripped.substring(0, stripped.length() - 1);
    }
    return stripped;
  }

  public Change create(
      String pool, PoolStrategy strategy, Duration offlineAfter, String actor, String reason) {
    Change change = store.createPool(pool, strategy, offlineAfter.toMillis(), clockMs.getAsLong());
    if (change == Change.CREATED || change == Change.CHANGED) {
      record(
          actor,
          "pool.create",
          pool + " " + strategy + " offline-after " + offlineAfter.toMillis() + "ms",
          reason);
    }
    return change;
  }

  /** A heartbeat: registers {@code url} (audited) or refreshes its time (not audited). */
  public Change heartbeat(String pool, String url, String actor, String reason) {
    String base = normalized(url);
    Change change = store.heartbeat(pool, base, clockMs.getAsLong());
    if (change == Change.CREATED) {
      record(actor, "pool.register", pool + " " + base, reason);
    }
    return change;
  }

  public Change drain(String pool, String url, String actor, String reason) {
    return state(pool, url, EndpointState.DRAINING, "pool.drain", actor, reason);
  }

  public Change undrain(String pool, String url, String actor, String reason) {
    return state(pool, url, EndpointState.ACTIVE, "pool.undrain", actor, reason);
  }

  /** Removes endpoint {@code url} of {@code pool}, or the pool with its endpoints when null. */
  public Change remove(String pool, String url, String actor, String reason) {
    if (url == null) {
      Change change = store.removePool(pool);
      if (change == Change.CHANGED) {
        record(actor, "pool.remove", pool, reason);
      }
      return change;
    }
    String base = normalized(url);
    Change change = store.removeEndpoint(pool, base);
    if (change == Change.CHANGED) {
      record(actor, "pool.remove", pool + " " + base, reason);
    }
    return change;
  }

  /** Every pool with its endpoints, by name. */
  public List<PoolView> pools() {
    long nowMs = clockMs.getAsLong();
    List<PoolStore.Endpoint> endpoints = store.endpoints();
    return store.pools().stream()
        .map(
            p -> view(p, endpoints.stream().filter(e -> e.pool().equals(p.name())).toList(), nowMs))
        .toList();
  }

  /** Pool {@code name} with its endpoints, if it exists. */
  public Optional<PoolView> pool(String name) {
    long nowMs = clockMs.getAsLong();
    return store.pool(name).map(p -> view(p, store.endpoints(name), nowMs));
  }

  private Change state(
      String pool, String url, EndpointState state, String action, String actor, String reason) {
    String base = normalized(url);
    Change change = store.setState(pool, base, state);
    if (change == Change.CHANGED) {
      record(actor, action, pool + " " + base, reason);
    }
    return change;
  }

  private void record(String actor, String action, String target, String reason) {
    audit.record(actor, action, target, reason, clockMs.getAsLong());
  }

  private static PoolView view(PoolStore.Pool pool, List<PoolStore.Endpoint> rows, long nowMs) {
    return new PoolView(
        pool.name(),
        pool.strategy(),
        pool.offlineAfterMs(),
        pool.createdAtMs(),
        pool.updatedAtMs(),
        rows.stream()
            .map(
                e ->
                    new EndpointView(
                        e.baseUrl(),
                        e.state(),
                        e.registeredAtMs(),
                        e.lastHeartbeatMs(),
                        Math.max(0, nowMs - e.lastHeartbeatMs()),
                        e.online(nowMs, pool.offlineAfterMs())))
            .toList());
  }

  private static String shown(String text) {
    return dev.ax.common.contract.Echo.of(text);
  }
}
