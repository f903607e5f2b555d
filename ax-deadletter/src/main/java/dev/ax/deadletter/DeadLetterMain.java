package dev.ax.deadletter;

import dev.ax.common.stage.StageMain;

/** Runs the dead-letter stage on its own, configured by AX_* environment variables. */
public final class DeadLetterMain {
  private DeadLetterMain() {}

  public static void main(String[] args) {
    StageMain.run(
        "ax-deadletter",
        StageMain.Needs.KAFKA_AND_DATABASE,
        DeadLetterKeys.class,
        DeadLetterConfig::from,
        (context, config) -> new DeadLetterStage(context, config).start());
  }
}
