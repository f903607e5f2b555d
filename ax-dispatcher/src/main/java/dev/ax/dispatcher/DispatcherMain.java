package dev.ax.dispatcher;

import dev.ax.common.stage.StageMain;

/** Runs the dispatcher stage on its own, configured by AX_* environment variables. */
public final class DispatcherMain {
  private DispatcherMain() {}

  public static void main(String[] args) {
    StageMain.run(
        "ax-dispatcher",
        DispatcherKeys.class,
        DispatcherConfig::from,
        (context, config) -> new DispatcherStage(context, config).start());
  }
}
