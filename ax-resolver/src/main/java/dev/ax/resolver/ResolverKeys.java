package dev.ax.resolver;

import dev.ax.common.config.ConfigKey;
import dev.ax.common.config.ConfigKeySet;
import java.time.Duration;

/**
 * The resolver's keys: where its state lives and how long it keeps a join. {@link ResolverConfig}
 * holds their values. Each key is declared once, here; see {@link ConfigKeySet}.
 */
public final class ResolverKeys implements ConfigKeySet {

  public static final ConfigKey<String> STATE_DIR =
      ConfigKey.string(
          "AX_RESOLVER_STATE_DIR",
          "",
          "Where the dependency resolver (Kafka Streams) keeps its local state; empty: a directory under java.io.tmpdir named after the node. State is rebuilt from its changelog when lost.");

  public static final ConfigKey<Duration> FLOW_JOIN_RETENTION =
      ConfigKey.duration(
          "AX_FLOW_JOIN_RETENTION",
          "24h",
          Duration.ofSeconds(1),
          Duration.ofDays(30),
          "How long the resolver keeps a join whose upstreams have not all succeeded in a flow run (and a triggered one, to absorb duplicate events); then it is dropped, logged and counted (ax.resolver.joins.dropped).");

  /** For the {@link java.util.ServiceLoader} only. */
  public ResolverKeys() {}
}
