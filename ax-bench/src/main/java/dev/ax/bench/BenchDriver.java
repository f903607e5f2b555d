package dev.ax.bench;

import dev.ax.cli.kafka.TaskCommandJson;
import dev.ax.cli.local.StopSignal;
import dev.ax.cli.text.Times;
import dev.ax.common.stage.StageContext;
import java.io.PrintWriter;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Drives the runs of one {@code ax bench} through the pipeline it started: sends a plan's tasks
 * (every one running {@code handler} with {@code params}), reads their completion events until all
 * are in, the wait after the last due time is over or a signal arrives, and for a measured run
 * reads what the report needs from the meters and the database. Not thread-safe: used by the
 * bench's main thread.
 *
 * @param kafka the commands out and the completion events in, read from the end of their topic as
 *     it was before the first send
 * @param waitAfterLastDue how long after a plan's last due time to wait for its completions
 * @param emitAhead the ticker's {@code AX_TICKER_EMIT_AHEAD}: an instance marked DISPATCHED up to
 *     this long before its due time is not early
 */
record BenchDriver(
    BenchKafka kafka,
    BenchStages stages,
    StopSignal stop,
    PrintWriter out,
    String handler,
    Map<String, String> params,
    Duration waitAfterLastDue,
    Duration emitAhead) {

  private static final Duration POLL_TIMEOUT = Duration.ofMillis(200);
  private static final Duration PROGRESS_EVERY = Duration.ofSeconds(1);
  private static final Duration TASK_TIMEOUT = Duration.ofSeconds(30);

  BenchDriver {
    // In the order given, as the commands list them.
    params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
  }

  /** This JVM's context: the clock and the database pool the bench reads through. */
  StageContext context() {
    return stages.context();
  }

  /** One measured run: sends the plan's tasks, collects their completions, reads the database. */
  BenchReport measure(BenchPlan plan) throws InterruptedException, SQLException {
    JitActivity jit = JitActivity.start(stages.processes());
    CpuTime cpu = CpuTime.start(stages.processes());
    MachineCpu machine = MachineCpu.start();
    TransactionTimes transactionsBefore = stages.transactionTimes();
    long firstProduceMs = produce(plan, true);
    BenchCollector collector = new BenchCollector(plan);
    collect(plan, collector, true);
    long jitMs = jit.compileMs();
    CpuTime.Used cpuUsed = cpu.used();
    MachineCpu.Used machineUsed = machine.used();
    TransactionTimes transactions = stages.transactionTimes().since(transactionsBefore);
    RunningTransitions running =
        RunningTransitions.count(context().dataSource(), plan.instanceIdPrefix());
    FireTimes fires =
        FireTimes.read(context().dataSource(), plan.instanceIdPrefix(), emitAhead.toMillis());
    return new BenchReport(
        plan, collector, running, fires, transactions, firstProduceMs, jitMs, cpuUsed, machineUsed);
  }

  /**
   * Sends every command of the plan (plain JSON, key = taskId) and waits until the broker has them
   * all.
   *
   * @param report whether to print what was sent
   * @return when the first one was sent, on the database clock
   */
  long produce(BenchPlan plan, boolean report) throws InterruptedException {
    long firstProduceMs = context().clock().millis();
    List<Future<RecordMetadata>> sends = new ArrayList<>(plan.tasks());
    for (int i = 0; i < plan.tasks(); i++) {
      TaskCommandJson command =
          TaskCommandJson.create(plan.taskId(i))
              .onceAtMs(plan.dueAtMs(i))
              .inProcess(handler)
              .timeout(TASK_TIMEOUT);
      params.forEach(command::param);
      sends.add(kafka.sendCommand(plan.taskId(i), command.toBytes()));
    }
    kafka.awaitAll(sends);
    long sentMs = context().clock().millis();
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
        plan.spread().toMillis());
    out.flush();
    return firstProduceMs;
  }

  /**
   * Reads completion events until every task completed, the wait is over, or a signal arrives.
   *
   * @param report whether to print progress and the count (else only when some did not complete)
   */
  void collect(BenchPlan plan, BenchCollector collector, boolean report) {
    long giveUpAtMs = plan.lastDueAtMs() + waitAfterLastDue.toMillis();
    long nextProgressMs = context().clock().millis() + PROGRESS_EVERY.toMillis();
    int lastReported = -1;
    while (!collector.allCompleted() && !stop.isRaised()) {
      long nowMs = context().clock().millis();
      if (nowMs > giveUpAtMs) {
        out.println(
            "Gave up waiting " + waitAfterLastDue.toSeconds() + " s after the last due time.");
        break;
      }
      kafka.completions(POLL_TIMEOUT).forEach(collector::accept);
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
    kafka.completions(POLL_TIMEOUT).forEach(collector::accept);
    if (!report && collector.allCompleted()) {
      return;
    }
    out.printf(
        Locale.ROOT,
        "Completed %d / %d at %s%n",
        collector.completed(),
        plan.tasks(),
        Times.clock(context().clock().millis()));
    out.flush();
  }
}
