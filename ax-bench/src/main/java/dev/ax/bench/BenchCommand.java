package dev.ax.bench;

import static dev.ax.cli.command.OptionChecks.requireInRange;
import static dev.ax.cli.command.OptionChecks.requireOneOf;

import dev.ax.cli.AxSubcommand;
import dev.ax.cli.command.ExitCodes;
import dev.ax.cli.command.VerboseOption;
import dev.ax.cli.kafka.CommandSender;
import dev.ax.cli.kafka.TopicTail;
import dev.ax.cli.local.ConfigCheck;
import dev.ax.cli.local.Infrastructure;
import dev.ax.cli.local.Pipeline;
import dev.ax.cli.local.StopSignal;
import dev.ax.cli.local.TempDirs;
import dev.ax.common.config.AxConfig;
import dev.ax.common.config.CommonConfig;
import dev.ax.common.config.CommonKeys;
import dev.ax.common.kafka.Topics;
import dev.ax.common.stage.StageContext;
import dev.ax.dispatcher.DispatcherConfig;
import dev.ax.ticker.TickerConfig;
import java.io.IOException;
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

  private static final String PROCESS_NAME = "ax-bench";
  private static final int MAX_TASKS = 1_000_000;
  private static final int MAX_DISPATCHERS = 16;
  private static final int MAX_RUNS = 100;
  private static final long MAX_DB_DELAY_MS = 1000;

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
      names = "--dispatchers",
      defaultValue = "1",
      paramLabel = "<n>",
      description =
          "Dispatcher stages in the one consumer group, as that many dispatcher processes would be"
              + " (default: ${DEFAULT-VALUE}). Their pools are AX_DISPATCHER_THREADS each.")
  private int dispatchers;

  @Option(
      names = "--stages",
      defaultValue = "in-jvm",
      paramLabel = "<where>",
      description =
          "in-jvm: every stage in this JVM with the embedded broker; processes: each stage's own"
              + " main in a JVM of its own, as a deployment runs them (ingest, ticker, dead-letter,"
              + " retry, resolver and --dispatchers dispatchers) (default: ${DEFAULT-VALUE}).")
  private String stagesWhere;

  @Option(
      names = "--db-delay",
      defaultValue = "0ms",
      paramLabel = "<duration>",
      description =
          "Route the stages (and the peer) to the database through a loopback proxy that holds"
              + " each answer this long, as tc netem delay would on the database's side of a link"
              + " (default: ${DEFAULT-VALUE}: straight to the database; at most "
              + MAX_DB_DELAY_MS
              + "ms).")
  private Duration dbDelay;

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

  @Option(
      names = "--history",
      defaultValue = "0",
      paramLabel = "<rows>",
      description =
          "Before the warm-up, load this many finished one-shot tasks (each an ENDED task, its"
              + " SUCCESS instance and its 4 audit rows) finished over the last AX_RETENTION, by"
              + " multi-row INSERTs over "
              + HISTORY_CONNECTIONS
              + " connections; then report table sizes before and after the measured runs"
              + " (default: ${DEFAULT-VALUE}: none; at most 200000000).")
  private long historyRows;

  @Option(
      names = "--history-expired",
      defaultValue = "10",
      paramLabel = "<percent>",
      description =
          "Of the --history rows, this share finished up to an hour before AX_RETENTION's"
              + " cutoff, so retention has rows to delete while the runs go on and its rate is"
              + " measured (default: ${DEFAULT-VALUE}; 0..100).")
  private int historyExpiredPercent;

  @Option(
      names = "--mix",
      paramLabel = "<name>",
      description =
          "Instead of the measured runs, a task mix: 'seed' registers the seeds' load test"
              + " (of every 20 tasks, 8 on second-level cron schedules with periods of 1 to 60 s,"
              + " 9 minute-level, 3 hour-level; expressions shared from small pools), counts"
              + " their firings for --duration against each schedule, reports start lateness per"
              + " class, missed, doubled and early firings, CPU per firing and the ticker's"
              + " batches per firing instant, then deletes the tasks (default: none).")
  private String mix;

  @Option(
      names = "--mix-tasks",
      defaultValue = "20000",
      paramLabel = "<n>",
      description = "Tasks of the --mix (default: ${DEFAULT-VALUE}, the seeds'; at most 200000).")
  private int mixTasks;

  @Option(
      names = "--mix-seed",
      defaultValue = "37",
      paramLabel = "<n>",
      description =
          "Draws the --mix's expressions: the same seed, the same tasks (default:"
              + " ${DEFAULT-VALUE}).")
  private long mixSeed;

  @Option(
      names = "--duration",
      defaultValue = "20m",
      paramLabel = "<duration>",
      description =
          "How long the --mix's firings are counted, from the moment every task is stored"
              + " (default: ${DEFAULT-VALUE}; 10s..1d).")
  private Duration mixDuration;

  @Option(
      names = "--soak",
      paramLabel = "<duration>",
      description =
          "Instead of the measured runs, a soak: ONCE tasks at --rate for this long (10s..1d),"
              + " each due --due-in after its send slot; per --soak-window: start lateness, lost,"
              + " duplicated and early tasks, heap after GC, resident sets and table sizes; a"
              + " verdict line at the end (default: none).")
  private Duration soak;

  @Option(
      names = "--rate",
      defaultValue = "2000",
      paramLabel = "<tasks/s>",
      description = "The --soak's steady rate (default: ${DEFAULT-VALUE}; 1..20000).")
  private int soakRate;

  @Option(
      names = "--soak-window",
      defaultValue = "5m",
      paramLabel = "<duration>",
      description =
          "The --soak's figures are per window of this long (default: ${DEFAULT-VALUE}, or"
              + " the whole soak if shorter; 10s..the soak's duration).")
  private Duration soakWindow;

  @Mixin private PeerOptions peerOptions;

  @Mixin private VerboseOption verbose;

  @Override
  public Integer call() throws Exception {
    requireInRange(spec, "--tasks", tasks, 1, MAX_TASKS);
    if (warmUpTasks < 0) {
      throw new ParameterException(
          spec.commandLine(), "--warm-up must be 0 (none) or more: " + warmUpTasks);
    }
    requireInRange(spec, "--dispatchers", dispatchers, 1, MAX_DISPATCHERS);
    requireInRange(spec, "--runs", runs, 1, MAX_RUNS);
    if (historyRows < 0 || historyRows > BenchHistory.MAX_ROWS) {
      throw new ParameterException(
          spec.commandLine(),
          "--history must be in 0.." + BenchHistory.MAX_ROWS + " rows: " + historyRows);
    }
    requireInRange(spec, "--history-expired", historyExpiredPercent, 0, 100);
    SeedMix seedMix = null;
    if (mix != null) {
      requireOneOf(spec, "--mix", mix, "seed");
      requireInRange(spec, "--mix-tasks", mixTasks, 1, SeedMix.MAX_TASKS);
      requireDuration("--duration", mixDuration, SeedMix.MIN_DURATION, SeedMix.MAX_DURATION);
      seedMix = new SeedMix(mixTasks, mixDuration, mixSeed);
    }
    SoakPlan soakPlan = null;
    if (soak != null) {
      requireDuration("--soak", soak, SoakPlan.MIN_DURATION, SoakPlan.MAX_DURATION);
      requireInRange(spec, "--rate", soakRate, 1, SoakPlan.MAX_RATE);
      if (!spec.commandLine().getParseResult().hasMatchedOption("--soak-window")
          && soakWindow.compareTo(soak) > 0) {
        soakWindow = soak; // the default window, for a soak shorter than it: one window
      }
      requireDuration("--soak-window", soakWindow, SoakPlan.MIN_WINDOW, soak);
      soakPlan = new SoakPlan(soak, soakRate, soakWindow, dueIn);
    }
    if (mix != null && soak != null) {
      throw new ParameterException(
          spec.commandLine(), "--mix and --soak are two benches: one of them");
    }
    if ((mix != null || soak != null) && (peerOptions.asked() || runs != 1)) {
      throw new ParameterException(
          spec.commandLine(), "--mix and --soak take neither --peer nor --runs");
    }
    peerOptions.check();
    requireOneOf(spec, "--stages", stagesWhere, "in-jvm", "processes");
    if (dbDelay.isNegative() || dbDelay.toMillis() > MAX_DB_DELAY_MS) {
      throw new ParameterException(
          spec.commandLine(),
          "--db-delay must be in 0ms.." + MAX_DB_DELAY_MS + "ms: " + dbDelay.toMillis() + "ms");
    }
    String peerClassPath = peerOptions.asked() ? PeerProcess.classPath() : null;
    PrintWriter out = spec.commandLine().getOut();
    CommonConfig base = ConfigCheck.commonFromEnvironment();
    verbose.applyToLogs();
    StopSignal stop = StopSignal.install(System.err);
    String runId = "bench-" + Long.toString(System.currentTimeMillis(), 36);
    Path dir = TempDirs.create("ax-bench-");
    List<String> problems = new ArrayList<>();
    BenchSeries series = new BenchSeries();
    try (Infrastructure servers = Infrastructure.resolve(base, dir);
        LatencyProxy proxy = startProxy(servers)) {
      AxConfig config = AxConfig.fromEnvironment(overrides(servers));
      Map<String, String> stageSettings = overrides(servers);
      if (proxy != null) {
        stageSettings.put(
            CommonKeys.JDBC_URL.name(),
            JdbcAddress.parse(CommonConfig.from(config).jdbcUrl())
                .pointedAt("127.0.0.1", proxy.port()));
      }
      AxConfig stageConfig = AxConfig.fromEnvironment(stageSettings);
      Topics topics = new Topics(CommonConfig.from(config).topicPrefix());
      try (BenchStages stages = startStages(stageConfig, config, stageSettings, dir, out);
          TopicTail completions =
              TopicTail.open(servers.kafka(), List.of(topics.completed()), TopicTail.From.END);
          CommandSender sender = CommandSender.open(servers.kafka(), PROCESS_NAME)) {
        out.println(
            "Bench "
                + runId
                + " on "
                + (servers.isEmbedded() ? "embedded" : "external")
                + " servers (Kafka "
                + servers.bootstrapServers()
                + ", database "
                + servers.displayJdbcUrl()
                + (proxy == null
                    ? ""
                    : ", reached through a proxy adding "
                        + dbDelay.toMillis()
                        + " ms to each round trip")
                + "), commands topic "
                + topics.commands()
                + ", "
                + stages.description()
                + ", dispatchers of "
                + DispatcherConfig.from(config).threads()
                + " threads");
        out.flush();
        if (stop.isRaised()) {
          out.println("Bench interrupted by " + stop.signalName() + " before it started.");
          return ExitCodes.INTERRUPTED;
        }
        StageContext context = stages.context();
        BenchDriver driver =
            new BenchDriver(
                sender,
                topics,
                completions,
                stages,
                stop,
                out,
                handler,
                params,
                wait,
                TickerConfig.from(config).emitAhead());
        BenchHistory history =
            new BenchHistory(
                historyRows, historyExpiredPercent, TickerConfig.from(config).retention());
        TableSizes sizesBefore = history.asked() ? loadHistory(history, context, runId, out) : null;
        BenchWarmUp.run(driver, runId, warmUpTasks);
        TickerFigures tickerBefore = TickerFigures.parse(stages.tickerMetrics());
        long measuredFromNs = System.nanoTime();
        String lastPrefix = null;
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
        PeerComparison comparison =
            peerProcess == null ? null : new PeerComparison(peerProcess.description());
        try {
          if (seedMix != null) {
            problems.addAll(SeedRun.run(seedMix, driver, runId, out));
          } else if (soakPlan != null) {
            problems.addAll(SoakRun.run(soakPlan, driver, runId, out));
          }
          for (int run = 1;
              run <= runs && !stop.isRaised() && seedMix == null && soakPlan == null;
              run++) {
            if (runs > 1) {
              out.printf(Locale.ROOT, "%nMeasured run %d of %d%n", run, runs);
            }
            BenchPlan plan =
                new BenchPlan(
                    runs == 1 ? runId : runId + "r" + run,
                    tasks,
                    context.clock().millis(),
                    dueIn,
                    spread);
            BenchReport report = driver.measure(plan);
            lastPrefix = plan.instanceIdPrefix();
            report.print(out);
            series.add(report.seriesRun(), report.lateness());
            String label = runs == 1 ? "" : "run " + run + ": ";
            report.problems().forEach(p -> problems.add(label + p));
            if (peerProcess != null && !stop.isRaised()) {
              CpuTime cpu = CpuTime.start();
              MachineCpu machine = MachineCpu.start();
              PeerResult result = peerProcess.run(plan.runId() + "-peer");
              comparison.add(
                  report,
                  report.seriesRun().stealMs(),
                  result,
                  cpu.used().databaseMs(),
                  machine.used().stealMs(),
                  out);
            }
          }
          if (comparison != null && comparison.size() > 0) {
            comparison.print(out);
          }
          printTicker(
              TickerFigures.parse(stages.tickerMetrics()).since(tickerBefore),
              (System.nanoTime() - measuredFromNs) / 1e9,
              out);
          if (sizesBefore != null) {
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
        } finally {
          if (peerProcess != null) {
            peerProcess.close();
          }
        }
      }
    } finally {
      TempDirs.deleteQuietly(dir);
    }
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

  /**
   * Loads {@code --history} through the bench's pool and prints how fast; the table sizes after it.
   */
  private static TableSizes loadHistory(
      BenchHistory history, StageContext context, String runId, PrintWriter out)
      throws java.sql.SQLException, InterruptedException {
    out.printf(
        Locale.ROOT,
        "History: loading %,d finished one-shot tasks (%d%% past the retention cutoff of %s)"
            + " over %d connections...%n",
        history.rows(),
        history.expiredPercent(),
        text(history.retention()),
        HISTORY_CONNECTIONS);
    out.flush();
    AgedDatabase aged =
        new AgedDatabase(
            context.dataSource(),
            history,
            "hist-" + runId.substring(runId.indexOf('-') + 1),
            context.clock().millis());
    AgedDatabase.Loaded loaded = aged.load(HISTORY_CONNECTIONS, out);
    out.printf(
        Locale.ROOT,
        "HISTORY rows=%d tasks=%d instances=%d audit=%d load_ms=%d rows_per_s=%.0f"
            + " instances_per_s=%.0f%n",
        loaded.rows(),
        loaded.tasks(),
        loaded.instances(),
        loaded.auditRows(),
        loaded.elapsedMs(),
        loaded.rowsPerSecond(),
        loaded.instancesPerSecond());
    TableSizes sizes = TableSizes.read(context.dataSource());
    out.flush();
    return sizes;
  }

  /** The ticker's window loads and retention over the measured runs, mix or soak. */
  static void printTicker(TickerFigures during, double seconds, PrintWriter out) {
    out.println();
    if (during.windowLoads() <= 0) {
      out.println("Ticker: no window load timed (the ticker's metrics did not answer)");
    } else {
      out.printf(
          Locale.ROOT,
          "Ticker over the measured part (%.0f s): %.0f window loads, p99 <= %.0f ms (histogram"
              + " bound), mean %.1f ms, max of the last minutes %.0f ms%n",
          seconds,
          during.windowLoads(),
          during.windowLoadP99Ms(),
          during.windowLoadMeanMs(),
          during.windowLoadMaxSeconds() * 1000);
    }
    out.printf(
        Locale.ROOT,
        "Retention over the measured part: %.0f instances and %.0f audit rows deleted,"
            + " %.0f instance rows/s (%.0f rows/s with their audit rows)%n",
        during.retainedInstances(),
        during.retainedAuditRows(),
        during.retainedInstances() / Math.max(1e-3, seconds),
        (during.retainedInstances() + during.retainedAuditRows()) / Math.max(1e-3, seconds));
    out.printf(
        Locale.ROOT,
        "TICKER window_loads=%.0f window_load_p99_ms=%.0f window_load_mean_ms=%.1f"
            + " retention_instances_per_s=%.1f retention_rows_per_s=%.1f seconds=%.0f%n",
        during.windowLoads(),
        during.windowLoadP99Ms(),
        during.windowLoadMeanMs(),
        during.retainedInstances() / Math.max(1e-3, seconds),
        (during.retainedInstances() + during.retainedAuditRows()) / Math.max(1e-3, seconds),
        seconds);
    out.flush();
  }

  private void requireDuration(String option, Duration value, Duration min, Duration max) {
    if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw new ParameterException(
          spec.commandLine(),
          option + " must be in " + text(min) + ".." + text(max) + ": " + text(value));
    }
  }

  /** {@code 20m}, {@code 1h30m}, {@code 10s}: as the options are written. */
  static String text(Duration duration) {
    return duration.toString().substring(2).toLowerCase(Locale.ROOT);
  }

  /** The database proxy of {@code --db-delay}, or null without one. */
  private LatencyProxy startProxy(Infrastructure servers) throws IOException {
    if (dbDelay.isZero()) {
      return null;
    }
    String url = servers.overrides().getOrDefault(CommonKeys.JDBC_URL.name(), "");
    if (url.isEmpty()) {
      url = ConfigCheck.commonFromEnvironment().jdbcUrl();
    }
    JdbcAddress address;
    try {
      address = JdbcAddress.parse(url);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(
          spec.commandLine(), "--db-delay cannot proxy the database URL: " + e.getMessage());
    }
    return LatencyProxy.start(address.socketAddress(), dbDelay);
  }

  /**
   * The stages, in this JVM or each in its own, reaching the database as {@code stageConfig} says.
   */
  private BenchStages startStages(
      AxConfig stageConfig,
      AxConfig benchConfig,
      Map<String, String> stageSettings,
      Path dir,
      PrintWriter out)
      throws IOException, InterruptedException {
    if (stagesWhere.equals("in-jvm")) {
      return BenchStages.inThisJvm(
          Pipeline.start(stageConfig, PROCESS_NAME, dispatchers), dispatchers);
    }
    // Not in the bench's directory, which is deleted at the end: a stage's log is how an odd
    // figure is explained afterwards.
    Path logDir = TempDirs.create("ax-bench-stage-logs-");
    return StageProcesses.start(
        CommonConfig.from(benchConfig), stageSettings, dispatchers, dir, logDir, out);
  }

  /** The servers, and a free metrics port (an `ax up` may hold the default one). */
  private static Map<String, String> overrides(Infrastructure servers) {
    Map<String, String> overrides = new HashMap<>(servers.overrides());
    overrides.put(CommonKeys.METRICS_BIND.name(), "127.0.0.1:0");
    return overrides;
  }
}
