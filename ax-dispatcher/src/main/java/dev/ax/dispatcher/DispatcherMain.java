package dev.ax.dispatcher;

import dev.ax.common.stage.StageMain;

/** Runs the dispatcher stage on its own, configured by AX_* environment variables. */
public final class DispatcherMain {
  private DispatcherMain() {}

  public static void main(String[] args) {
    StageMain.run(
        "ax-dispatcher",
        StageMain.Needs.KAFKA_AND_DATABASE,
        DispatcherKeys.class,
        DispatcherConfig::from,
        (context, config) -> new DispatcherStage(context, config).start());
  }
}
