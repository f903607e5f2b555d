package dev.ax.resolver;

import dev.ax.common.stage.StageMain;

/** Runs the dependency resolver on its own, configured by AX_* environment variables. */
public final class ResolverMain {
  private ResolverMain() {}

  public static void main(String[] args) {
    StageMain.run("ax-resolver", context -> new ResolverStage(context).start());
  }
}
