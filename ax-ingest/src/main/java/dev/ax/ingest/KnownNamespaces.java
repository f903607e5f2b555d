package dev.ax.ingest;

import dev.ax.common.model.Namespace;
import dev.ax.common.time.Clock;
import java.util.Collection;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The namespaces that exist, as ingest knows them: read from {@code ax_namespace} when a name is
 * not among those read last, at most once per {@link #REREAD_MS}, so a flood of commands for a
 * namespace that does not exist costs one query per interval, not one per command. A namespace once
 * seen is not forgotten (namespaces are never deleted).
 *
 * <p>Not thread-safe: ingest's consumer thread only.
 */
final class KnownNamespaces {

  static final long REREAD_MS = 2_000;

  private final Supplier<Collection<Namespace>> store;
  private final Clock clock;
  private Set<Namespace> known = Set.of();
  private long readAtMs = Long.MIN_VALUE;

  /**
   * @param store reads every namespace created ({@code NamespaceStore})
   */
  KnownNamespaces(Supplier<Collection<Namespace>> store, Clock clock) {
    this.store = store;
    this.clock = clock;
  }

  boolean exists(Namespace namespace) {
    if (namespace.isDefault() || known.contains(namespace)) {
      return true;
    }
    long nowMs = clock.millis();
    if (readAtMs != Long.MIN_VALUE && nowMs - readAtMs < REREAD_MS) {
      return false;
    }
    known = Set.copyOf(store.get());
    readAtMs = nowMs;
    return known.contains(namespace);
  }
}
