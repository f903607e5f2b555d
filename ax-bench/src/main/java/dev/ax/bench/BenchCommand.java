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
          + " set. Exit code 1 when a task is missing, ran twice or started early."
    })
public final class BenchCommand implements Callable<Integer>, AxSubcommand {

  private static final String PROCESS_NAME = "ax-bench";
  private static final int MAX_TASKS = 1_000_000;
  private static final int MAX_DISPATCHERS = 16;
  private static final int MAX_RUNS = 100;
  private static final long MAX_DB_DELAY_MS = 1000;

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
        BenchWarmUp.run(driver, runId, warmUpTasks);
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
          for (int run = 1; run <= runs && !stop.isRaised(); run++) {
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
