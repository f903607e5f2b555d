package dev.ax.ticker;

import dev.ax.common.stage.StageMain;

/** Runs the ticker stage on its own, configured by AX_* environment variables. */
public final class TickerMain {
  private TickerMain() {}

  public static void main(String[] args) {
    StageMain.run(
        "ax-ticker",
        StageMain.Needs.KAFKA_AND_DATABASE,
        TickerKeys.class,
        TickerConfig::from,
        (context, config) -> new TickerStage(context, config).start());
  }
}
