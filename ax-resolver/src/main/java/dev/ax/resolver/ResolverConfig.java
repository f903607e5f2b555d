package dev.ax.resolver;

import dev.ax.common.config.AxConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The resolver's configuration ({@link ResolverKeys}), read once by {@link ResolverMain} (or the
 * CLI) and handed to {@link ResolverStage}. Immutable.
 *
 * @param stateDir where Kafka Streams keeps its state; empty: a directory under java.io.tmpdir
 *     named after the node
 * @param joinRetention how long an unfinished (or triggered) join is kept
 */
public record ResolverConfig(Optional<Path> stateDir, Duration joinRetention) {

  public static ResolverConfig from(AxConfig config) {
    String stateDir = config.get(ResolverKeys.STATE_DIR);
    return new ResolverConfig(
        stateDir.isBlank() ? Optional.empty() : Optional.of(Path.of(stateDir)),
        config.get(ResolverKeys.FLOW_JOIN_RETENTION));
  }
}
