package dev.ax.ingest;

import dev.ax.common.stage.StageMain;

/** Runs the ingest stage on its own, configured by AX_* environment variables. */
public final class IngestMain {
  private IngestMain() {}

  public static void main(String[] args) {
    StageMain.run(
        "ax-ingest",
        StageMain.Needs.KAFKA_AND_DATABASE,
        IngestKeys.class,
        IngestConfig::from,
        (context, config) -> new IngestStage(context, config).start());
  }
}
