package dev.ax.resolver;

import dev.ax.common.stage.StageMain;

/**
 * Runs the dependency resolver on its own, configured by AX_* environment variables. It uses Kafka
 * alone: no database is required or opened.
 */
public final class ResolverMain {
  private ResolverMain() {}

  public static void main(String[] args) {
    StageMain.run(
        "ax-resolver",
        StageMain.Needs.KAFKA_ONLY,
        ResolverKeys.class,
        ResolverConfig::from,
        (context, config) -> new ResolverStage(context, config).start());
  }
}
