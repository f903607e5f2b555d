package dev.ax.bench;

import static dev.ax.cli.command.OptionChecks.requireInRange;

import dev.ax.cli.AxSubcommand;
import dev.ax.cli.command.ExitCodes;
import dev.ax.cli.command.VerboseOption;
import dev.ax.cli.local.ConfigCheck;
import dev.ax.cli.local.Infrastructure;
import dev.ax.cli.local.StopSignal;
import dev.ax.cli.local.TempDirs;
import dev.ax.common.config.AxConfig;
import dev.ax.common.config.CommonConfig;
import dev.ax.common.config.CommonKeys;
import dev.ax.common.kafka.Topics;
import dev.ax.common.stage.StageContext;
import dev.ax.dispatcher.DispatcherConfig;
import dev.ax.ticker.TickerConfig;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code ax bench}: the load harness. Starts every stage in this JVM (embedded servers in a
 * temporary directory unless {@code AX_KAFKA_BOOTSTRAP} and {@code AX_JDBC_URL} are set), sends N
 * ONCE commands with explicit due times spread over a window, waits for their completion events,
 * and reports lateness, throughput, early starts, duplicates and missing tasks. Exits 1 when a task
 * is missing, ran twice or started early. Runs on the main thread.
 *
 * <p>On external servers the bench's stages join whatever AX already runs there (same topics,
 * consumer groups and database: the database alone would hand the bench's instances to another
 * deployment's ticker anyway), so a task may run on either. The run's task ids ({@code
 * bench-<run>-<n>}) tell its events and audit rows apart, and completions are read from the end of
 * the topic as it was before the first command was sent.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = {
      "Load harness: send N ONCE tasks due in the same short window, wait for their completion"
          + " events, and report lateness (claimed - due), throughput, early starts, duplicates"
          + " and missing tasks.",
      "Embedded servers in a temporary directory unless AX_KAFKA_BOOTSTRAP and AX_JDBC_URL are"
          + " set. Exit code 1 when a task is missing, ran twice or started early.",
      "At volume: --history ages the database first; --mix seed runs the seeds' cron load test"
          + " and --soak a steady rate, each instead of the measured runs."
    })
public final class BenchCommand implements Callable<Integer>, AxSubcommand {

  static final String PROCESS_NAME = "ax-bench";
  private static final int MAX_TASKS = 1_000_000;
  private static final int MAX_RUNS = 100;

  /** Connections the history load writes over at once. */
  static final int HISTORY_CONNECTIONS = 4;

  /** The ticker's lateness target: a series counts the runs within it. */
  private static final long TARGET_P99_MS = 50;

  private static final long TARGET_MAX_MS = 200;

  @Spec private CommandSpec spec;

  @Option(
      names = {"-n", "--tasks"},
      defaultValue = "2000",
      paramLabel = "<n>",
      description = "How many tasks (default: ${DEFAULT-VALUE}).")
  private int tasks;

  @Option(
      names = "--due-in",
      defaultValue = "5s",
      paramLabel = "<duration>",
      description = "The first task is due this long after the start (default: ${DEFAULT-VALUE}).")
  private Duration dueIn;

  @Option(
      names = "--spread",
      defaultValue = "1s",
      paramLabel = "<duration>",
      description = "Due times are spread evenly over this window (default: ${DEFAULT-VALUE}).")
  private Duration spread;

  @Option(
      names = "--handler",
      defaultValue = "noop",
      paramLabel = "<name>",
      description = "The in-process handler every task runs (default: ${DEFAULT-VALUE}).")
  private String handler;

  @Option(
      names = "--param",
      paramLabel = "<key=value>",
      description =
          "A parameter for the handler, e.g. sleepMs=50 for the sleep handler; repeatable.")
  private Map<String, String> params = new LinkedHashMap<>();

  @Option(
      names = "--wait",
      defaultValue = "60s",
      paramLabel = "<duration>",
      description =
          "How long after the last due time to wait for completions (default: ${DEFAULT-VALUE}).")
  private Duration wait;

  @Option(
      names = "--warm-up",
      defaultValue = "400000",
      paramLabel = "<n>",
      description =
          "At most this many tasks run through the pipeline first and are not measured, in rounds"
              + " of up to "
              + BenchWarmUp.ROUND_TASKS
              + ", until a round leaves the JIT compilers idle for 95%% of it: the figures then"
              + " describe a running deployment, not a JVM still compiling its hot paths"
              + " (default: ${DEFAULT-VALUE}; 0: none, measure a cold JVM).")
  private int warmUpTasks;

  @Option(
      names = "--runs",
      defaultValue = "1",
      paramLabel = "<n>",
      description =
          "Measured runs after the one warm-up, each with its own tasks and report, then a"
              + " summary of their lateness (default: ${DEFAULT-VALUE}). On a shared machine one"
              + " run says little; a series says how often a target holds.")
  private int runs;

  @Mixin private StageOptions stageOptions;

  @Mixin private HistoryOptions historyOptions;

  @Mixin private MixOptions mixOptions;

  @Mixin private SoakOptions soakOptions;

  @Mixin private PeerOptions peerOptions;

  @Mixin private VerboseOption verbose;

  @Override
  public Integer call() throws Exception {
    checkOptions();
    SeedMix seedMix = mixOptions.plan();
    SoakPlan soakPlan = soakOptions.plan(dueIn);
    checkOneBench();
    String peerClassPath = peerOptions.asked() ? PeerProcess.classPath() : null;
    PrintWriter out = spec.commandLine().getOut();
    CommonConfig base = ConfigCheck.commonFromEnvironment();
    verbose.applyToLogs();
    StopSignal stop = StopSignal.install(System.err);
    String runId = "bench-" + Long.toString(System.currentTimeMillis(), 36);
    Path dir = TempDirs.create("ax-bench-");
    List<String> problems = new ArrayList<>();
    BenchSeries series = new BenchSeries();
    stageOptions.sizeBufferPool(Infrastructure.embeds(base));
    try (Infrastructure servers = Infrastructure.resolve(base, dir);
        LatencyProxy proxy = stageOptions.startProxy(servers)) {
      AxConfig config = AxConfig.fromEnvironment(overrides(servers));
      Map<String, String> stageSettings = stageSettings(servers, config, proxy);
      AxConfig stageConfig = AxConfig.fromEnvironment(stageSettings);
      Topics topics = new Topics(CommonConfig.from(config).topicPrefix());
      try (BenchStages stages =
              stageOptions.startStages(stageConfig, config, stageSettings, dir, out);
          BenchKafka kafka = BenchKafka.open(servers.kafka(), topics, PROCESS_NAME)) {
        out.println(banner(runId, servers, proxy, topics, stages, config));
        out.flush();
        if (stop.isRaised()) {
          out.println("Bench interrupted by " + stop.signalName() + " before it started.");
          return ExitCodes.INTERRUPTED;
        }
        StageContext context = stages.context();
        BenchDriver driver = driver(kafka, stages, stop, out, config);
        BenchHistory history = historyOptions.history(TickerConfig.from(config).retention());
        TableSizes sizesBefore =
            history.asked() ? AgedDatabase.loadReported(history, context, runId, out) : null;
        BenchWarmUp.run(driver, runId, warmUpTasks);
        TickerFigures tickerBefore = TickerFigures.parse(stages.tickerMetrics());
        long measuredFromNs = System.nanoTime();
        MeasuredRuns measured = new MeasuredRuns(runId, runs, tasks, dueIn, spread);
        PeerProcess peerProcess =
            peerOptions.asked()
                ? peerOptions.start(
                    peerClassPath,
                    stageConfig,
                    new BenchPlan("peer", tasks, 0, dueIn, spread),
                    wait,
                    warmUpTasks,
                    out)
                : null;
        try {
          if (seedMix != null) {
            problems.addAll(SeedRun.run(seedMix, driver, runId, out));
          } else if (soakPlan != null) {
            problems.addAll(SoakRun.run(soakPlan, driver, runId, out));
          } else {
            PeerComparison comparison =
                peerProcess == null ? null : new PeerComparison(peerProcess.description());
            measured.run(driver, stop, peerProcess, comparison, series, problems, out);
          }
          TickerFigures.parse(stages.tickerMetrics())
              .since(tickerBefore)
              .print((System.nanoTime() - measuredFromNs) / 1e9, out);
          if (sizesBefore != null) {
            printTablesAfter(sizesBefore, context, measured.lastPrefix(), out);
          }
        } finally {
          if (peerProcess != null) {
            peerProcess.close();
          }
        }
      }
    } finally {
      TempDirs.deleteQuietly(dir);
    }
    return exitCode(series, problems, stop, out);
  }

  /** The driver of this bench's workloads: sends, collects and reports with the options given. */
  private BenchDriver driver(
      BenchKafka kafka, BenchStages stages, StopSignal stop, PrintWriter out, AxConfig config) {
    return new BenchDriver(
        kafka, stages, stop, out, handler, params, wait, TickerConfig.from(config).emitAhead());
  }

  /**
   * Checks the options of every bench, but those of {@code --mix} and {@code --soak}.
   *
   * @throws ParameterException naming the first option out of range
   */
  private void checkOptions() {
    requireInRange(spec, "--tasks", tasks, 1, MAX_TASKS);
    if (warmUpTasks < 0) {
      throw new ParameterException(
          spec.commandLine(), "--warm-up must be 0 (none) or more: " + warmUpTasks);
    }
    stageOptions.checkDispatchers();
    requireInRange(spec, "--runs", runs, 1, MAX_RUNS);
    historyOptions.check();
  }

  /**
   * Checks that at most one of the measured runs, {@code --mix} and {@code --soak} is asked for,
   * then the options of the peer and of the stages.
   *
   * @throws ParameterException naming what cannot go together or is out of range
   */
  private void checkOneBench() {
    boolean mix = mixOptions.asked();
    boolean soak = soakOptions.asked();
    if (mix && soak) {
      throw new ParameterException(
          spec.commandLine(), "--mix and --soak are two benches: one of them");
    }
    if ((mix || soak) && (peerOptions.asked() || runs != 1)) {
      throw new ParameterException(
          spec.commandLine(), "--mix and --soak take neither --peer nor --runs");
    }
    peerOptions.check();
    stageOptions.check();
  }

  /** The first line of a bench: its run id, the servers, the stages and their pools. */
  private String banner(
      String runId,
      Infrastructure servers,
      LatencyProxy proxy,
      Topics topics,
      BenchStages stages,
      AxConfig config) {
    return "Bench "
        + runId
        + " on "
        + (servers.isEmbedded() ? "embedded" : "external")
        + " servers (Kafka "
        + servers.bootstrapServers()
        + ", database "
        + servers.displayJdbcUrl()
        + (stageOptions.dbBufferPoolMb() > 0
            ? ", its InnoDB buffer pool " + stageOptions.dbBufferPoolMb() + " MiB"
            : "")
        + (proxy == null
            ? ""
            : ", reached through a proxy adding "
                + stageOptions.dbDelay().toMillis()
                + " ms to each round trip")
        + "), commands topic "
        + topics.commands()
        + ", "
        + stages.description()
        + ", dispatchers of "
        + DispatcherConfig.from(config).threads()
        + " threads";
  }

  /** The stages' settings: the bench's, the database reached through {@code proxy} if any. */
  private static Map<String, String> stageSettings(
      Infrastructure servers, AxConfig config, LatencyProxy proxy) {
    Map<String, String> stageSettings = overrides(servers);
    if (proxy != null) {
      stageSettings.put(
          CommonKeys.JDBC_URL.name(),
          JdbcAddress.parse(CommonConfig.from(config).jdbcUrl())
              .pointedAt("127.0.0.1", proxy.port()));
    }
    return stageSettings;
  }

  /** How the tables grew over the measured part, after a {@code --history} load. */
  private static void printTablesAfter(
      TableSizes sizesBefore, StageContext context, String lastPrefix, PrintWriter out)
      throws java.sql.SQLException {
    TableSizes.printChange(
        "Tables: after the history load / after the measured part",
        sizesBefore,
        TableSizes.read(context.dataSource()),
        out);
    if (lastPrefix != null) {
      out.printf(
          Locale.ROOT,
          "Audit rows per instance: %.2f in the last measured run, %d in the history%n",
          AgedDatabase.auditRowsPerInstance(context.dataSource(), lastPrefix),
          AgedDatabase.AUDIT_ROWS_PER_INSTANCE);
    }
  }

  /** Prints the series and what failed; the exit code they make. */
  private int exitCode(
      BenchSeries series, List<String> problems, StopSignal stop, PrintWriter out) {
    if (runs > 1 && series.size() > 0) {
      series.print(out, TARGET_P99_MS, TARGET_MAX_MS);
    }
    if (!problems.isEmpty()) {
      out.println("Bench FAILED: " + String.join("; ", problems));
      out.flush();
    }
    if (stop.isRaised()) {
      return ExitCodes.INTERRUPTED;
    }
    return problems.isEmpty() ? ExitCodes.OK : ExitCodes.FAILED;
  }

  /** {@code 20m}, {@code 1h30m}, {@code 10s}: as the options are written. */
  static String text(Duration duration) {
    return duration.toString().substring(2).toLowerCase(Locale.ROOT);
  }

  /** The servers, and a free metrics port (an `ax up` may hold the default one). */
  private static Map<String, String> overrides(Infrastructure servers) {
    Map<String, String> overrides = new HashMap<>(servers.overrides());
    overrides.put(CommonKeys.METRICS_BIND.name(), "127.0.0.1:0");
    return overrides;
  }
}
