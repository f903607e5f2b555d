package dev.ax.compose.cli;

import dev.ax.common.config.AxConfig;
import dev.ax.common.config.ConfigKeys;
import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.kafka.Topics;
import dev.ax.common.stage.StageContext;
import dev.ax.compose.bench.BenchCollector;
import dev.ax.compose.bench.BenchPlan;
import dev.ax.compose.bench.BenchReport;
import dev.ax.compose.bench.FireTimes;
import dev.ax.compose.bench.RunningTransitions;
import dev.ax.compose.kafka.CommandSender;
import dev.ax.compose.kafka.TaskCommandJson;
import dev.ax.compose.kafka.TopicTail;
import dev.ax.compose.local.ConfigCheck;
import dev.ax.compose.local.Infrastructure;
import dev.ax.compose.local.Pipeline;
import dev.ax.compose.local.StopSignal;
import dev.ax.compose.local.TempDirs;
import dev.ax.compose.text.Times;
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
public final class BenchCommand implements Callable<Integer> {

  private static final String PROCESS_NAME = "ax-bench";
  private static final Duration POLL_TIMEOUT = Duration.ofMillis(200);
  private static final Duration PROGRESS_EVERY = Duration.ofSeconds(1);
  private static final Duration TASK_TIMEOUT = Duration.ofSeconds(30);
  private static final int MAX_TASKS = 1_000_000;
  private static final int MAX_DISPATCHERS = 16;

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
      defaultValue = "1000",
      description =
          "Tasks run through the pipeline first and not measured, so the figures describe a"
              + " running deployment rather than a cold JVM (default: ${DEFAULT-VALUE}; 0: none).")
  private int warmUpTasks;

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
    if (dispatchers < 1 || dispatchers > MAX_DISPATCHERS) {
      throw new ParameterException(
          spec.commandLine(),
          "--dispatchers must be in 1.." + MAX_DISPATCHERS + ": " + dispatchers);
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
    BenchReport report;
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
        if (warmUpTasks > 0) {
          out.println("Warming up with " + warmUpTasks + " unmeasured tasks...");
          BenchPlan warmUp =
              new BenchPlan(
                  runId + "w",
                  warmUpTasks,
                  context.clock().millis(),
                  Duration.ofSeconds(1),
                  Duration.ofSeconds(2));
          produce(warmUp, sender, topics, context, out);
          collect(warmUp, completions, new BenchCollector(warmUp), context, stop, out);
        }
        BenchPlan plan = new BenchPlan(runId, tasks, context.clock().millis(), dueIn, spread);
        long firstProduceMs = produce(plan, sender, topics, context, out);
        BenchCollector collector = new BenchCollector(plan);
        collect(plan, completions, collector, context, stop, out);
        RunningTransitions running =
            RunningTransitions.count(context.dataSource(), plan.instanceIdPrefix());
        FireTimes fires = FireTimes.read(context.dataSource(), plan.instanceIdPrefix());
        report = new BenchReport(plan, collector, running, fires, firstProduceMs);
      }
    } finally {
      TempDirs.deleteQuietly(dir);
    }
    report.print(out);
    List<String> problems = report.problems();
    if (!problems.isEmpty()) {
      out.println("Bench FAILED: " + String.join("; ", problems));
      out.flush();
    }
    if (stop.isRaised()) {
      return ExitCodes.INTERRUPTED;
    }
    return problems.isEmpty() ? ExitCodes.OK : ExitCodes.FAILED;
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
      BenchPlan plan, CommandSender sender, Topics topics, StageContext context, PrintWriter out)
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
      PrintWriter out) {
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
      if (nowMs >= nextProgressMs && collector.completed() != lastReported) {
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
    out.printf(
        Locale.ROOT,
        "Completed %d / %d at %s%n",
        collector.completed(),
        plan.tasks(),
        Times.clock(context.clock().millis()));
    out.flush();
  }
}
