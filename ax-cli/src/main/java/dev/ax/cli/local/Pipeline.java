package dev.ax.cli.local;

import dev.ax.common.config.AxConfig;
import dev.ax.common.config.CommonConfig;
import dev.ax.common.config.KnownKeys;
import dev.ax.common.stage.StageContext;
import dev.ax.common.stage.StageRuntime;
import dev.ax.deadletter.DeadLetterConfig;
import dev.ax.deadletter.DeadLetterStage;
import dev.ax.dispatcher.DispatcherConfig;
import dev.ax.dispatcher.DispatcherStage;
import dev.ax.ingest.IngestConfig;
import dev.ax.ingest.IngestStage;
import dev.ax.resolver.ResolverConfig;
import dev.ax.resolver.ResolverStage;
import dev.ax.retry.RetryConfig;
import dev.ax.retry.RetryStage;
import dev.ax.ticker.TickerConfig;
import dev.ax.ticker.TickerStage;
import java.util.ArrayDeque;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every stage of AX in this JVM: ingest, ticker, dead-letter, retry, resolver and dispatcher over
 * one {@link StageRuntime} (one database pool, one clock, one metrics endpoint).
 *
 * <p>{@link #close()} stops them in the reverse order (dispatcher first; each drains what it has in
 * hand), then the runtime. A stage that fails to stop is logged and the others are still stopped.
 * Start and close are called by one thread; {@link #context()} from any.
 */
public final class Pipeline implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Pipeline.class);

  private final StageRuntime runtime;
  private final Deque<NamedStage> stages;

  private record NamedStage(String name, AutoCloseable stage) {}

  private Pipeline(StageRuntime runtime, Deque<NamedStage> stages) {
    this.runtime = runtime;
    this.stages = stages;
  }

  /**
   * Reads every stage's configuration from {@code config} (a bad value stops here, before anything
   * opens), logs the effective values once, opens the runtime (pool, migrations, clock, topics,
   * metrics) and starts every stage with its own. If one fails to start, what already started is
   * stopped again before the exception propagates.
   *
   * @param processName the name in logs and pool names, e.g. {@code ax}
   */
  public static Pipeline start(AxConfig config, String processName) {
    return start(config, processName, 1);
  }

  /**
   * As {@link #start(AxConfig, String)}, with {@code dispatchers} dispatcher stages in the one
   * consumer group, as that many dispatcher processes would be (node ids {@code <node>}, {@code
   * <node>-d2}, ...; they share this JVM's database pool and meters). For the scaling bench.
   */
  public static Pipeline start(AxConfig config, String processName, int dispatchers) {
    if (dispatchers < 1) {
      throw new IllegalArgumentException("dispatchers must be at least 1: " + dispatchers);
    }
    CommonConfig common = CommonConfig.from(config);
    IngestConfig ingest = IngestConfig.from(config);
    TickerConfig ticker = TickerConfig.from(config);
    DeadLetterConfig deadLetter = DeadLetterConfig.from(config);
    RetryConfig retry = RetryConfig.from(config);
    ResolverConfig resolver = ResolverConfig.from(config);
    DispatcherConfig dispatcher = DispatcherConfig.from(config);
    log.info("{} starting with {}", processName, config.describe(KnownKeys.all()));
    StageRuntime runtime = StageRuntime.open(common, processName);
    StageContext context = runtime.context();
    Deque<NamedStage> started = new ArrayDeque<>();
    try {
      started.push(new NamedStage("ingest", new IngestStage(context, ingest).start()));
      TickerStage tickerStage = new TickerStage(context, ticker).start();
      started.push(new NamedStage("ticker", tickerStage));
      runtime.readiness().add("ticker", tickerStage);
      started.push(new NamedStage("dead-letter", new DeadLetterStage(context, deadLetter).start()));
      started.push(new NamedStage("retry", new RetryStage(context, retry).start()));
      started.push(new NamedStage("resolver", new ResolverStage(context, resolver).start()));
      started.push(new NamedStage("dispatcher", new DispatcherStage(context, dispatcher).start()));
      for (int n = 2; n <= dispatchers; n++) {
        StageContext replica = context.withNodeId(context.nodeId() + "-d" + n);
        started.push(
            new NamedStage("dispatcher " + n, new DispatcherStage(replica, dispatcher).start()));
      }
      runtime.readiness().start();
    } catch (RuntimeException e) {
      closeAll(started);
      runtime.close();
      throw e;
    }
    return new Pipeline(runtime, started);
  }

  public StageContext context() {
    return runtime.context();
  }

  /** Stops the stages, last started first, then the runtime. */
  @Override
  public void close() {
    closeAll(stages);
    runtime.close();
  }

  /** Closes the stages last started first, each even if an earlier one failed to close. */
  private static void closeAll(Deque<NamedStage> stages) {
    while (!stages.isEmpty()) {
      NamedStage stage = stages.pop();
      try {
        stage.stage().close();
      } catch (Exception e) {
        log.warn("The {} stage did not stop cleanly: {}", stage.name(), e.toString());
      }
    }
  }
}
