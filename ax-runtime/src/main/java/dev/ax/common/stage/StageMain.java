package dev.ax.common.stage;

import dev.ax.common.config.AxConfig;
import dev.ax.common.config.CommonConfig;
import dev.ax.common.config.CommonKeys;
import dev.ax.common.config.ConfigException;
import dev.ax.common.config.ConfigKey;
import dev.ax.common.config.ConfigKeySet;
import dev.ax.common.contract.Echo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The body of every stage's {@code Main}: read the configuration into the typed records, the shared
 * {@link CommonConfig} and the stage's own (stop at once, exit 2, with the key and value, if it is
 * wrong), log their effective values on one line, open the runtime, start the stage with both, and
 * on SIGTERM / Ctrl-C stop the stage (it drains), then the runtime. A consumer loop that dies (its
 * thread ends for any reason but the stop) makes the process not ready and ends it the same way,
 * with exit status {@link #EXIT_STAGE_FAILED}.
 */
public final class StageMain {

  private static final Logger log = LoggerFactory.getLogger(StageMain.class);

  /**
   * How a stage is started: from the context (which holds the common configuration) and its own
   * configuration record.
   */
  @FunctionalInterface
  public interface StageStarter<C> {
    AutoCloseable start(StageContext context, C config);
  }

  /**
   * The exit status of a stage that ended because one of its consumer loops died, or that could not
   * start.
   */
  public static final int EXIT_STAGE_FAILED = 1;

  /** The exit status of a stage whose configuration is wrong. */
  public static final int EXIT_CONFIG = 2;

  private StageMain() {}

  /**
   * What a stage runs on: the resolver uses Kafka alone, and then no database is required or
   * opened.
   */
  public enum Needs {
    KAFKA_AND_DATABASE,
    KAFKA_ONLY
  }

  /**
   * @param stageKeys the class that declares the stage's keys, whose values the start-up log shows
   * @param readConfig reads and validates the stage's own configuration record
   */
  public static <C> void run(
      String name,
      Needs needs,
      Class<? extends ConfigKeySet> stageKeys,
      Function<AxConfig, C> readConfig,
      StageStarter<C> starter) {
    CommonConfig common;
    C stageConfig;
    try {
      AxConfig config = AxConfig.fromEnvironment(Map.of());
      common = CommonConfig.from(config);
      stageConfig = readConfig.apply(config);
      List<ConfigKey<?>> shown = new ArrayList<>(ConfigKeySet.keysOf(CommonKeys.class));
      shown.addAll(ConfigKeySet.keysOf(stageKeys));
      log.info("{} starting with {}", name, config.describe(shown));
    } catch (ConfigException e) {
      exitForConfig(name, e);
      return;
    }
    StageRuntime runtime;
    try {
      runtime =
          needs == Needs.KAFKA_AND_DATABASE
              ? StageRuntime.open(common, name)
              : StageRuntime.openWithoutDatabase(common, name);
    } catch (ConfigException e) {
      exitForConfig(name, e);
      return;
    }
    // The hook is in place before the stage starts, so a loop that dies while it starts still ends
    // the process through it.
    AtomicReference<AutoCloseable> started = new AtomicReference<>();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  log.info("{} stopping", name);
                  AutoCloseable stage = started.get();
                  try {
                    if (stage != null) {
                      stage.close();
                    }
                  } catch (Exception e) {
                    log.warn("{} did not stop cleanly: {}", name, e.toString());
                  }
                  runtime.close();
                  stopped.countDown();
                },
                name + "-shutdown"));
    AtomicBoolean exiting = new AtomicBoolean();
    runtime
        .loops()
        .onDeath(
            (loop, cause) -> {
              if (exiting.compareAndSet(false, true)) {
                exitAfterDeath(name, loop, cause);
              }
            });
    AutoCloseable stage;
    try {
      stage = starter.start(runtime.context(), stageConfig);
    } catch (RuntimeException e) {
      // Not left hanging half-started (the metrics server's thread would keep the JVM alive).
      log.error("{} could not start; exiting with {}", name, EXIT_STAGE_FAILED, e);
      System.exit(EXIT_STAGE_FAILED);
      return;
    }
    started.set(stage);
    if (stage instanceof Readiness.Check check) {
      runtime.readiness().add(name, check); // the stage's own condition, beside database and broker
    }
    runtime.readiness().start(); // ready from the first round that passes, with the stage running
    log.info("{} running; stop with SIGTERM or Ctrl-C", name);
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Ends the process with {@link #EXIT_STAGE_FAILED} through the normal stop (the shutdown hook
   * drains the stage and closes the runtime), so the supervisor (Kubernetes, compose, systemd)
   * restarts it rather than keep a process that looks alive and reads nothing. {@code System.exit}
   * runs on a thread of its own: it waits for the hook, and the hook waits for the dying loop's
   * thread, which is the caller.
   */
  private static void exitAfterDeath(String name, String loop, Throwable cause) {
    log.error(
        "{}: consumer loop {} died ({}); the stage cannot go on, exiting with {}",
        name,
        loop,
        Echo.cut(cause.toString()),
        EXIT_STAGE_FAILED);
    Thread exit = new Thread(() -> System.exit(EXIT_STAGE_FAILED), name + "-exit");
    exit.start();
  }

  private static void exitForConfig(String name, ConfigException e) {
    System.err.println(name + ": " + e.getMessage());
    System.exit(EXIT_CONFIG);
  }
}
