package dev.ax.common.store;

import static dev.ax.common.store.Jdbc.Binder.values;

import dev.ax.common.model.EndpointState;
import dev.ax.common.model.PoolStrategy;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The executor pools ({@code ax_executor_pool}) and their endpoints ({@code ax_pool_endpoint}):
 * written by the API and the CLI, read by the dispatchers' pool directories. Bounded: at most
 * {@link #MAX_POOLS} pools and {@link #MAX_ENDPOINTS_PER_POOL} endpoints per pool; a change past a
 * bound is refused with {@link Change#FULL}. An endpoint's state moves ACTIVE ↔ DRAINING only, each
 * UPDATE conditional on the state it leaves. A registration locks its pool's row, so concurrent
 * heartbeats cannot overshoot the endpoint bound. Every expected outcome is a returned {@link
 * Change}. Thread-safe (stateless over a pool).
 */
public final class PoolStore {

  /** Most pools AX keeps. */
  public static final int MAX_POOLS = 1000;

  /** Most endpoints one pool keeps. */
  public static final int MAX_ENDPOINTS_PER_POOL = 64;

  /** The longest base URL an endpoint may have. */
  public static final int MAX_BASE_URL_LENGTH = 512;

  /** What a change did. */
  public enum Change {
    /** Created (a pool, or an endpoint's first registration). */
    CREATED,
    /** Changed something that existed. */
    CHANGED,
    /** Nothing to change: it was so already (a heartbeat of a known endpoint is this). */
    UNCHANGED,
    /** No such pool. */
    NO_POOL,
    /** No such endpoint in the pool. */
    NO_ENDPOINT,
    /** Refused: the bound on pools, or on endpoints of the pool, is reached. */
    FULL
  }

  /** One pool as stored. */
  public record Pool(
      String name,
      PoolStrategy strategy,
      long offlineAfterMs,
      long createdAtMs,
      long updatedAtMs) {}

  /** One endpoint as stored. */
  public record Endpoint(
      String pool, String baseUrl, EndpointState state, long registeredAtMs, long lastHeartbeatMs) {

    /** Whether its last heartbeat is at most {@code offlineAfterMs} old at {@code nowMs}. */
    public boolean online(long nowMs, long offlineAfterMs) {
      return nowMs - lastHeartbeatMs <= offlineAfterMs;
    }
  }

  /** A pool's row as {@link #pool(ResultSet)} reads it. */
  private static final String POOL_COLUMNS =
      "SELECT name, strategy, offline_after_ms, created_at_ms, updated_at_ms FROM ax_executor_pool";

  /** An endpoint's row as {@link #endpoint(ResultSet)} reads it. */
  private static final String ENDPOINT_COLUMNS =
      "SELECT pool, base_url, state, registered_at_ms, last_heartbeat_ms FROM ax_pool_endpoint";

  private final Jdbc jdbc;

  public PoolStore(DataSource dataSource) {
    this.jdbc = new Jdbc(dataSource);
  }

  /**
   * Creates pool {@code name}, or sets its strategy and offline-after when it exists.
   *
   * @return CREATED, CHANGED, UNCHANGED (exists so already), or FULL ({@link #MAX_POOLS})
   */
  public Change createPool(String name, PoolStrategy strategy, long offlineAfterMs, long nowMs) {
    return jdbc.inTransaction(
        "creating executor pool " + name,
        tx -> {
          Optional<Pool> existing =
              tx.queryFirst(
                  "SELECT name, strategy, offline_after_ms, created_at_ms, updated_at_ms"
                      + " FROM ax_executor_pool WHERE name = ? FOR UPDATE",
                  values(name),
                  PoolStore::pool);
          if (existing.isPresent()) {
            Pool pool = existing.get();
            if (pool.strategy() == strategy && pool.offlineAfterMs() == offlineAfterMs) {
              return Change.UNCHANGED;
            }
            tx.update(
                "UPDATE ax_executor_pool SET strategy = ?, offline_after_ms = ?, updated_at_ms = ?"
                    + " WHERE name = ?",
                values(strategy.name(), offlineAfterMs, nowMs, name));
            return Change.CHANGED;
          }
          long count =
              tx.queryFirst("SELECT COUNT(*) FROM ax_executor_pool", values(), rs -> rs.getLong(1))
                  .orElse(0L);
          if (count >= MAX_POOLS) {
            return Change.FULL;
          }
          tx.update(
              "INSERT INTO ax_executor_pool"
                  + " (name, strategy, offline_after_ms, created_at_ms, updated_at_ms)"
                  + " VALUES (?, ?, ?, ?, ?)",
              values(name, strategy.name(), offlineAfterMs, nowMs, nowMs));
          return Change.CREATED;
        });
  }

  /**
   * Registers {@code baseUrl} in {@code pool} (ACTIVE), or refreshes its heartbeat when it is
   * there: a heartbeat. A draining endpoint stays draining.
   *
   * @return CREATED (first registration), UNCHANGED (heartbeat refreshed), NO_POOL, or FULL
   */
  public Change heartbeat(String pool, String baseUrl, long nowMs) {
    return jdbc.inTransaction(
        "registering " + baseUrl + " in executor pool " + pool,
        tx -> {
          boolean poolExists =
              tx.queryFirst(
                      "SELECT name FROM ax_executor_pool WHERE name = ? FOR UPDATE",
                      values(pool),
                      rs -> rs.getString(1))
                  .isPresent();
          if (!poolExists) {
            return Change.NO_POOL;
          }
          int refreshed =
              tx.update(
                  "UPDATE ax_pool_endpoint SET last_heartbeat_ms = GREATEST(last_heartbeat_ms, ?)"
                      + " WHERE pool = ? AND base_url = ?",
                  values(nowMs, pool, baseUrl));
          if (refreshed > 0) {
            return Change.UNCHANGED;
          }
          long count =
              tx.queryFirst(
                      "SELECT COUNT(*) FROM ax_pool_endpoint WHERE pool = ?",
                      values(pool),
                      rs -> rs.getLong(1))
                  .orElse(0L);
          if (count >= MAX_ENDPOINTS_PER_POOL) {
            return Change.FULL;
          }
          tx.update(
              "INSERT INTO ax_pool_endpoint"
                  + " (pool, base_url, state, registered_at_ms, last_heartbeat_ms)"
                  + " VALUES (?, ?, ?, ?, ?)",
              values(pool, baseUrl, EndpointState.ACTIVE.name(), nowMs, nowMs));
          return Change.CREATED;
        });
  }

  /**
   * Moves an endpoint to {@code state} (ACTIVE ↔ DRAINING).
   *
   * @return CHANGED, UNCHANGED (in that state already), or NO_ENDPOINT
   */
  public Change setState(String pool, String baseUrl, EndpointState state) {
    EndpointState from =
        state == EndpointState.ACTIVE ? EndpointState.DRAINING : EndpointState.ACTIVE;
    return jdbc.inTransaction(
        "setting " + baseUrl + " of executor pool " + pool + " " + state,
        tx -> {
          int moved =
              tx.update(
                  "UPDATE ax_pool_endpoint SET state = ?"
                      + " WHERE pool = ? AND base_url = ? AND state = ?",
                  values(state.name(), pool, baseUrl, from.name()));
          if (moved > 0) {
            return Change.CHANGED;
          }
          return tx.queryFirst(
                      "SELECT state FROM ax_pool_endpoint WHERE pool = ? AND base_url = ?",
                      values(pool, baseUrl),
                      rs -> rs.getString(1))
                  .isPresent()
              ? Change.UNCHANGED
              : Change.NO_ENDPOINT;
        });
  }

  /**
   * Removes one endpoint.
   *
   * @return CHANGED or NO_ENDPOINT
   */
  public Change removeEndpoint(String pool, String baseUrl) {
    return jdbc.inTransaction(
        "removing " + baseUrl + " from executor pool " + pool,
        tx ->
            tx.update(
                        "DELETE FROM ax_pool_endpoint WHERE pool = ? AND base_url = ?",
                        values(pool, baseUrl))
                    > 0
                ? Change.CHANGED
                : Change.NO_ENDPOINT);
  }

  /**
   * Removes a pool and its endpoints. Its tasks' runs then fail (retryably) until it exists again.
   *
   * @return CHANGED or NO_POOL
   */
  public Change removePool(String pool) {
    return jdbc.inTransaction(
        "removing executor pool " + pool,
        tx -> {
          // The pool's row first, as a heartbeat locks it: one registering meanwhile waits, then
          // finds no pool, and leaves no endpoint behind.
          if (tx.queryFirst(
                  "SELECT name FROM ax_executor_pool WHERE name = ? FOR UPDATE",
                  values(pool),
                  rs -> rs.getString(1))
              .isEmpty()) {
            return Change.NO_POOL;
          }
          tx.update("DELETE FROM ax_pool_endpoint WHERE pool = ?", values(pool));
          tx.update("DELETE FROM ax_executor_pool WHERE name = ?", values(pool));
          return Change.CHANGED;
        });
  }

  /** Every pool, by name. */
  public List<Pool> pools() {
    return jdbc.query(
        "reading the executor pools", POOL_COLUMNS + " ORDER BY name", values(), PoolStore::pool);
  }

  /** Pool {@code name}, if it exists. */
  public Optional<Pool> pool(String name) {
    return jdbc.queryFirst(
        "reading executor pool " + name,
        POOL_COLUMNS + " WHERE name = ?",
        values(name),
        PoolStore::pool);
  }

  /** Every endpoint of every pool, by pool, then in registration order. */
  public List<Endpoint> endpoints() {
    return jdbc.query(
        "reading the executor pool endpoints",
        ENDPOINT_COLUMNS + " ORDER BY pool, registered_at_ms, base_url",
        values(),
        PoolStore::endpoint);
  }

  /** The endpoints of {@code pool}, in registration order. */
  public List<Endpoint> endpoints(String pool) {
    return jdbc.query(
        "reading the endpoints of executor pool " + pool,
        ENDPOINT_COLUMNS + " WHERE pool = ? ORDER BY registered_at_ms, base_url",
        values(pool),
        PoolStore::endpoint);
  }

  private static Pool pool(ResultSet rs) throws SQLException {
    return new Pool(
        rs.getString(1),
        PoolStrategy.valueOf(rs.getString(2)),
        rs.getLong(3),
        rs.getLong(4),
        rs.getLong(5));
  }

  private static Endpoint endpoint(ResultSet rs) throws SQLException {
    return new Endpoint(
        rs.getString(1),
        rs.getString(2),
        EndpointState.valueOf(rs.getString(3)),
        rs.getLong(4),
        rs.getLong(5));
  }
}
