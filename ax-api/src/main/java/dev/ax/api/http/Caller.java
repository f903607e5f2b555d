package dev.ax.api.http;

import dev.ax.common.model.Namespace;
import java.util.Set;

/**
 * Who makes a request: a token's name, role and namespaces, or the local user on a loopback bind
 * without tokens. The name is what the audit records as the operator. Immutable.
 *
 * @param name the operator's name (a token's name, or {@link #LOCAL}'s)
 * @param mayOperate whether the caller may change anything (role {@code operate})
 * @param namespaces the namespaces the caller may read (and, with the operate role, change); null:
 *     every namespace, AX-wide views (audit, global switches) included
 * @param heartbeatOnly role {@code heartbeat}: the caller may send executor pool heartbeats ({@code
 *     POST /api/v1/pools/{pool}/heartbeat}) and nothing else, not even a read
 * @param heartbeatPools the pools a heartbeat-only caller may register endpoints in; null: every
 *     pool (a token line's {@code *}); ignored for other callers
 */
public record Caller(
    String name,
    boolean mayOperate,
    Set<Namespace> namespaces,
    boolean heartbeatOnly,
    Set<String> heartbeatPools) {

  /** Any caller of a loopback bind without tokens: whoever can reach the machine's loopback. */
  public static final Caller LOCAL = new Caller("console@localhost", true, null);

  public Caller {
    namespaces = namespaces == null ? null : Set.copyOf(namespaces);
    heartbeatPools = heartbeatPools == null ? null : Set.copyOf(heartbeatPools);
    if (heartbeatOnly && mayOperate) {
      throw new IllegalArgumentException("a heartbeat-only caller cannot operate");
    }
  }

  /** A caller of role read or operate. */
  public Caller(String name, boolean mayOperate, Set<Namespace> namespaces) {
    this(name, mayOperate, namespaces, false, null);
  }

  /**
   * A caller of role heartbeat: it may only send executor pool heartbeats, to {@code pools} (null:
   * every pool).
   */
  public static Caller heartbeat(String name, Set<String> pools) {
    return new Caller(name, false, null, true, pools);
  }

  /** Whether this caller may send a heartbeat to {@code pool}. */
  public boolean mayHeartbeat(String pool) {
    return heartbeatOnly
        ? heartbeatPools == null || heartbeatPools.contains(pool)
        : everyNamespace();
  }

  /** A caller of every namespace. */
  public Caller(String name, boolean mayOperate) {
    this(name, mayOperate, null);
  }

  /** Whether the caller's token reaches every namespace (and so AX-wide views). */
  public boolean everyNamespace() {
    return namespaces == null;
  }

  /** Whether the caller may use {@code namespace}. */
  public boolean mayUse(Namespace namespace) {
    return namespaces == null || namespaces.contains(namespace);
  }
}
