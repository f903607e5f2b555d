package dev.ax.common.stage;

import dev.ax.common.config.AxConfig;
import dev.ax.common.config.ConfigException;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The body of every stage's {@code Main}: read the configuration (stop at once, with the key and
 * value, if it is wrong), open the runtime, start the stage, and on SIGTERM / Ctrl-C stop the stage
 * (it drains), then the runtime.
 */
public final class StageMain {

  private static final Logger log = LoggerFactory.getLogger(StageMain.class);

  private StageMain() {}

  public static void run(String name, Function<StageContext, AutoCloseable> stageFactory) {
    run(name, stageFactory, true);
  }

  /** As {@link #run}, for a stage that uses Kafka alone: no database is required or opened. */
  public static void runWithoutDatabase(
      String name, Function<StageContext, AutoCloseable> stageFactory) {
    run(name, stageFactory, false);
  }

  private static void run(
      String name, Function<StageContext, AutoCloseable> stageFactory, boolean usesDatabase) {
    AxConfig config;
    try {
      config = AxConfig.fromEnvironment(Map.of());
    } catch (ConfigException e) {
      System.err.println(name + ": " + e.getMessage());
      System.exit(2);
      return;
    }
    StageRuntime runtime;
    try {
      runtime =
          usesDatabase
              ? StageRuntime.open(config, name)
              : StageRuntime.openWithoutDatabase(config, name);
    } catch (ConfigException e) {
      System.err.println(name + ": " + e.getMessage());
      System.exit(2);
      return;
    }
    AutoCloseable stage = stageFactory.apply(runtime.context());
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  log.info("{} stopping", name);
                  try {
                    stage.close();
                  } catch (Exception e) {
                    log.warn("{} did not stop cleanly: {}", name, e.toString());
                  }
                  runtime.close();
                  stopped.countDown();
                },
                name + "-shutdown"));
    log.info("{} running; stop with SIGTERM or Ctrl-C", name);
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
