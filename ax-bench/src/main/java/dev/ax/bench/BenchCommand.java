package dev.ax.bench;

import dev.ax.cli.AxSubcommand;
import dev.ax.cli.command.DurationConverter;
import dev.ax.cli.command.ExitCodes;
import dev.ax.cli.command.LogLevels;
import dev.ax.cli.kafka.CommandSender;
import dev.ax.cli.kafka.TaskCommandJson;
import dev.ax.cli.kafka.TopicTail;
import dev.ax.cli.local.ConfigCheck;
import dev.ax.cli.local.Infrastructure;
import dev.ax.cli.local.Pipeline;
import dev.ax.cli.local.StopSignal;
import dev.ax.cli.local.TempDirs;
import dev.ax.cli.text.Times;
import dev.ax.common.config.AxConfig;
import dev.ax.common.config.ConfigKeys;
import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.kafka.Topics;
import dev.ax.common.stage.StageContext;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import picocli.CommandLine.Command;
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
  private static final Duration POLL_TIMEOUT = Duration.ofMillis(200);
  private static final Duration PROGRESS_EVERY = Duration.ofSeconds(1);
  private static final Duration TASK_TIMEOUT = Duration.ofSeconds(30);
  private static final int MAX_TASKS = 1_000_000;
  private static final int MAX_DISPATCHERS = 16;
  private static final int WARM_UP_ROUND = 10_000;
  private static final int MAX_RUNS = 100;

  /** The ticker's lateness target: a series counts the runs within it. */
  private static final long TARGET_P99_MS = 50;

  private static final long TARGET_MAX_MS = 200;

  /** A warm-up round with JIT compile time under this share of its wall time ends the warm-up. */
  private static final double JIT_SETTLED_SHARE = 0.05;

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
      converter = DurationConverter.class,
      paramLabel = "<duration>",
      description = "The first task is due this long after the start (default: ${DEFAULT-VALUE}).")
  private Duration dueIn;

  @Option(
      names = "--spread",
      defaultValue = "1s",
      converter = DurationConverter.class,
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
      names = "--wait",
      defaultValue = "60s",
      converter = DurationConverter.class,
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
              + WARM_UP_ROUND
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
      names = {"-v", "--verbose"},
      description = "Show the stages' logs too.")
  private boolean verbose;

  @Override
  public Integer call() throws Exception {
    if (tasks < 1 || tasks > MAX_TASKS) {
      throw new ParameterException(
          spec.commandLine(), "--tasks must be in 1.." + MAX_TASKS + ": " + tasks);
    }
    if (warmUpTasks < 0) {
      throw new ParameterException(
          spec.commandLine(), "--warm-up must be 0 (none) or more: " + warmUpTasks);
    }
    if (dispatchers < 1 || dispatchers > MAX_DISPATCHERS) {
      throw new ParameterException(
          spec.commandLine(),
          "--dispatchers must be in 1.." + MAX_DISPATCHERS + ": " + dispatchers);
    }
    if (runs < 1 || runs > MAX_RUNS) {
      throw new ParameterException(
          spec.commandLine(), "--runs must be in 1.." + MAX_RUNS + ": " + runs);
    }
    PrintWriter out = spec.commandLine().getOut();
    AxConfig base = AxConfig.fromEnvironment(Map.of());
    ConfigCheck.validate(base);
    if (!verbose) {
      LogLevels.quiet();
    }
    StopSignal stop = StopSignal.install(System.err);
    String runId = "bench-" + Long.toString(System.currentTimeMillis(), 36);
    Path dir = TempDirs.create("ax-bench-");
    List<String> problems = new ArrayList<>();
    BenchSeries series = new BenchSeries();
    try (Infrastructure servers = Infrastructure.resolve(base, dir)) {
      AxConfig config = AxConfig.fromEnvironment(overrides(servers));
      Topics topics = new Topics(config.get(ConfigKeys.TOPIC_PREFIX));
      out.println(
          "Bench "
              + runId
              + " on "
              + (servers.isEmbedded() ? "embedded" : "external")
              + " servers (Kafka "
              + servers.bootstrapServers()
              + ", database "
              + servers.displayJdbcUrl()
              + "), commands topic "
              + topics.commands()
              + ", "
              + dispatchers
              + " dispatcher(s) of "
              + config.get(ConfigKeys.DISPATCHER_THREADS)
              + " threads");
      out.flush();
      try (Pipeline pipeline = Pipeline.start(config, PROCESS_NAME, dispatchers);
          TopicTail completions =
              TopicTail.open(
                  servers.bootstrapServers(), List.of(topics.completed()), TopicTail.From.END);
          CommandSender sender = CommandSender.open(servers.bootstrapServers(), PROCESS_NAME)) {
        if (stop.isRaised()) {
          out.println("Bench interrupted by " + stop.signalName() + " before it started.");
          return ExitCodes.INTERRUPTED;
        }
        StageContext context = pipeline.context();
        Rig rig = new Rig(sender, topics, completions, context, stop, out);
        warmUp(runId, rig);
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
          BenchReport report = measure(plan, rig);
          report.print(out);
          series.add(report.seriesRun(), report.lateness());
          String label = runs == 1 ? "" : "run " + run + ": ";
          report.problems().forEach(p -> problems.add(label + p));
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

  /** What every run of one bench uses: the servers' clients, the stages, the signal, the output. */
  private record Rig(
      CommandSender sender,
      Topics topics,
      TopicTail completions,
      StageContext context,
      StopSignal stop,
      PrintWriter out) {}

  /** One measured run: sends the plan's tasks, collects their completions, reads the database. */
  private BenchReport measure(BenchPlan plan, Rig rig) throws InterruptedException, SQLException {
    StageContext context = rig.context();
    JitActivity jit = JitActivity.start();
    CpuTime cpu = CpuTime.start();
    MachineCpu machine = MachineCpu.start();
    TransactionTimes transactionsBefore = TransactionTimes.snapshot(context.meters());
    long firstProduceMs = produce(plan, rig.sender(), rig.topics(), context, rig.out(), true);
    BenchCollector collector = new BenchCollector(plan);
    collect(plan, rig.completions(), collector, context, rig.stop(), rig.out(), true);
    long jitMs = jit.compileMs();
    CpuTime.Used cpuUsed = cpu.used();
    MachineCpu.Used machineUsed = machine.used();
    TransactionTimes transactions =
        TransactionTimes.snapshot(context.meters()).since(transactionsBefore);
    RunningTransitions running =
        RunningTransitions.count(context.dataSource(), plan.instanceIdPrefix());
    FireTimes fires = FireTimes.read(context.dataSource(), plan.instanceIdPrefix());
    return new BenchReport(
        plan, collector, running, fires, transactions, firstProduceMs, jitMs, cpuUsed, machineUsed);
  }

  /**
   * Runs unmeasured rounds of tasks (each due from 1 s after it is sent, spread over 2 s) until a
   * round's JIT compile time falls under {@link #JIT_SETTLED_SHARE} of its wall time or {@code
   * --warm-up} tasks have run. A JVM holding the broker and every stage keeps compiling for minutes
   * under load (docs/BENCHMARKS.md, "A warmed-up JVM"); measured during that time, lateness
   * describes the compilers' competition for CPU more than the pipeline.
   */
  private void warmUp(String runId, Rig rig) throws InterruptedException {
    StageContext context = rig.context();
    PrintWriter out = rig.out();
    if (warmUpTasks == 0) {
      return;
    }
    out.println(
        "Warming up until the JIT compilers settle, with at most "
            + warmUpTasks
            + " unmeasured tasks (on two cores this takes a few minutes; --warm-up 0 skips it)...");
    out.flush();
    int left = warmUpTasks;
    for (int round = 1; left > 0 && !rig.stop().isRaised(); round++) {
      int roundTasks = Math.min(WARM_UP_ROUND, left);
      left -= roundTasks;
      BenchPlan plan =
          new BenchPlan(
              runId + "w" + round,
              roundTasks,
              context.clock().millis(),
              Duration.ofSeconds(1),
              Duration.ofSeconds(2));
      JitActivity jit = JitActivity.start();
      long startNanos = System.nanoTime();
      produce(plan, rig.sender(), rig.topics(), context, out, false);
      collect(plan, rig.completions(), new BenchCollector(plan), context, rig.stop(), out, false);
      long wallMs = Math.max(1, (System.nanoTime() - startNanos) / 1_000_000);
      long compileMs = jit.compileMs();
      out.printf(
          Locale.ROOT,
          "Warm-up round %d: %d unmeasured tasks in %d ms, JIT compiling for %d ms (%.0f%%)%n",
          round,
          roundTasks,
          wallMs,
          compileMs,
          100.0 * compileMs / wallMs);
      out.flush();
      if (JitActivity.isMeasured() && compileMs < wallMs * JIT_SETTLED_SHARE) {
        return;
      }
    }
    out.println(
        "Warm-up ended before the JIT compilers settled: the figures below include their"
            + " competition for CPU.");
    out.flush();
  }

  /** The servers, and a free metrics port (an `ax up` may hold the default one). */
  private static Map<String, String> overrides(Infrastructure servers) {
    Map<String, String> overrides = new HashMap<>(servers.overrides());
    overrides.put(ConfigKeys.METRICS_BIND.name(), "127.0.0.1:0");
    return overrides;
  }

  /**
   * Sends every command of the plan (plain JSON, key = taskId) and waits until the broker has them
   * all.
   *
   * @return when the first one was sent, on the database clock
   */
  private long produce(
      BenchPlan plan,
      CommandSender sender,
      Topics topics,
      StageContext context,
      PrintWriter out,
      boolean report)
      throws InterruptedException {
    long firstProduceMs = context.clock().millis();
    List<Future<RecordMetadata>> sends = new ArrayList<>(plan.tasks());
    for (int i = 0; i < plan.tasks(); i++) {
      TaskCommandJson command =
          TaskCommandJson.create(plan.taskId(i))
              .onceAtMs(plan.dueAtMs(i))
              .inProcess(handler)
              .timeout(TASK_TIMEOUT);
      params.forEach(command::param);
      sends.add(sender.sendAsync(topics.commands(), plan.taskId(i), command.toBytes()));
    }
    for (Future<RecordMetadata> send : sends) {
      sender.await(send);
    }
    long sentMs = context.clock().millis();
    if (!report) {
      return firstProduceMs;
    }
    out.printf(
        Locale.ROOT,
        "Sent %d commands in %d ms; due from %s to %s (%s from now, spread over %d ms)%n",
        plan.tasks(),
        sentMs - firstProduceMs,
        Times.clock(plan.firstDueAtMs()),
        Times.clock(plan.lastDueAtMs()),
        Duration.ofMillis(plan.firstDueAtMs() - sentMs)
            .toString()
            .substring(2)
            .toLowerCase(Locale.ROOT),
        spread.toMillis());
    out.flush();
    return firstProduceMs;
  }

  /** Reads completion events until every task completed, the wait is over, or a signal arrives. */
  private void collect(
      BenchPlan plan,
      TopicTail completions,
      BenchCollector collector,
      StageContext context,
      StopSignal stop,
      PrintWriter out,
      boolean report) {
    long giveUpAtMs = plan.lastDueAtMs() + wait.toMillis();
    long nextProgressMs = context.clock().millis() + PROGRESS_EVERY.toMillis();
    int lastReported = -1;
    while (!collector.allCompleted() && !stop.isRaised()) {
      long nowMs = context.clock().millis();
      if (nowMs > giveUpAtMs) {
        out.println("Gave up waiting " + wait.toSeconds() + " s after the last due time.");
        break;
      }
      for (ConsumerRecord<String, byte[]> record : completions.poll(POLL_TIMEOUT)) {
        collector.accept(AxJson.read(record.value(), TaskCompletedEvent.class));
      }
      if (report && nowMs >= nextProgressMs && collector.completed() != lastReported) {
        lastReported = collector.completed();
        out.printf(
            Locale.ROOT,
            "  %s  completed %d / %d%n",
            Times.clock(nowMs),
            collector.completed(),
            plan.tasks());
        out.flush();
        nextProgressMs = nowMs + PROGRESS_EVERY.toMillis();
      }
    }
    // A duplicate run would show up as a second event shortly after the first: read what is
    // already on the topic once more before judging.
    for (ConsumerRecord<String, byte[]> record : completions.poll(POLL_TIMEOUT)) {
      collector.accept(AxJson.read(record.value(), TaskCompletedEvent.class));
    }
    if (!report && collector.allCompleted()) {
      return;
    }
    out.printf(
        Locale.ROOT,
        "Completed %d / %d at %s%n",
        collector.completed(),
        plan.tasks(),
        Times.clock(context.clock().millis()));
    out.flush();
  }
}
