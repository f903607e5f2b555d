package dev.ax.retry;

import dev.ax.common.stage.StageMain;

/** Runs the retry stage on its own, configured by AX_* environment variables. */
public final class RetryMain {
  private RetryMain() {}

  public static void main(String[] args) {
    StageMain.run(
        "ax-retry",
        StageMain.Needs.KAFKA_AND_DATABASE,
        RetryKeys.class,
        RetryConfig::from,
        (context, config) -> new RetryStage(context, config).start());
  }
}
