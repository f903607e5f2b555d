package dev.ax.bench;

import dev.ax.cli.kafka.TaskCommandJson;
import dev.ax.cli.text.Times;
import dev.ax.common.contract.TaskCompletedEvent;
import java.io.PrintWriter;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Future;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * One {@code ax bench --soak}: sends ONCE tasks at a steady rate for the duration while reading
 * their completions, and once a window's tasks had {@link #GRACE} after its end to complete, prints
 * that window: start lateness p50/p99/max, lost, duplicated and early tasks, the live heap (after a
 * full collection the judge asks for), the resident sets of AX's JVMs and of the embedded database,
 * and the table sizes. Ends with a verdict line. Which task completed is one bit per task; a
 * window's lateness is one histogram, so memory grows by a bit per task. Not thread-safe: runs on
 * the bench's main thread.
 */
final class SoakRun {

  /** A window is judged this long after its last due time. */
  static final Duration GRACE = Duration.ofSeconds(30);

  private static final Duration SEND_EVERY = Duration.ofMillis(50);
  private static final Duration TASK_TIMEOUT = Duration.ofSeconds(30);

  private final SoakPlan plan;
  private final BenchDriver driver;
  private final String prefix;
  private final PrintWriter out;
  private final BitSet completed;
  private final long[] duplicates;
  private final long[] early;
  private final Histogram[] lateness;
  private final List<Future<RecordMetadata>> inFlight = new ArrayList<>();
  private long firstDueMs;
  private long totalLost;
  private long totalDuplicates;
  private long totalEarly;
  private long afterJudged;
  private final Histogram allLateness = new Histogram(3);

  private SoakRun(SoakPlan plan, BenchDriver driver, String prefix, PrintWriter out) {
    this.plan = plan;
    this.driver = driver;
    this.prefix = prefix;
    this.out = out;
    this.completed = new BitSet(plan.tasks());
    this.duplicates = new long[plan.windows()];
    this.early = new long[plan.windows()];
    this.lateness = new Histogram[plan.windows()];
    for (int w = 0; w < lateness.length; w++) {
      lateness[w] = new Histogram(3);
    }
  }

  /** Runs the soak; returns what makes it a failure (lost, duplicated or early tasks). */
  static List<String> run(SoakPlan plan, BenchDriver driver, String runId, PrintWriter out)
      throws InterruptedException, SQLException {
    return new SoakRun(plan, driver, "soak-" + runId.substring(runId.indexOf('-') + 1), out).soak();
  }

  private String taskId(int index) {
    return String.format(Locale.ROOT, "%s-%010d", prefix, index);
  }

  private List<String> soak() throws InterruptedException, SQLException {
    long startMs = driver.context().clock().millis();
    firstDueMs = startMs + plan.dueIn().toMillis();
    out.printf(
        Locale.ROOT,
        "Soak: %,d ONCE tasks at %d/s for %s, each due %s after its send slot, judged in"
            + " windows of %s (%d windows), %s after each window's end%n",
        plan.tasks(),
        plan.ratePerSecond(),
        BenchCommand.text(plan.duration()),
        BenchCommand.text(plan.dueIn()),
        BenchCommand.text(plan.window()),
        plan.windows(),
        BenchCommand.text(GRACE));
    out.println(
        "  window  from      tasks  completed  lost  dup  early  late p50 / p99 / max ms"
            + "      live heap MB  RSS AX / db MB  ax_instance / ax_instance_log rows, all MB");
    out.flush();
    int sent = 0;
    int judged = 0;
    long lastSendMs = startMs;
    while (!driver.stop().isRaised() && judged < plan.windows()) {
      long now = driver.context().clock().millis();
      if (sent < plan.tasks() && now - lastSendMs >= SEND_EVERY.toMillis()) {
        int target = Math.min(plan.tasks(), plan.tasksBefore(now - startMs + 1));
        for (; sent < target; sent++) {
          send(sent);
        }
        lastSendMs = now;
        confirmSends(false);
      }
      driver.kafka().completions(Duration.ofMillis(20)).forEach(this::accept);
      long windowEndMs =
          firstDueMs
              + Math.min(plan.duration().toMillis(), (judged + 1) * plan.window().toMillis());
      if (now >= windowEndMs + GRACE.toMillis()) {
        judge(judged, windowEndMs);
        judged++;
      }
    }
    confirmSends(true);
    long tasksJudged =
        plan.tasksBefore(
            Math.min(plan.duration().toMillis(), (long) judged * plan.window().toMillis()));
    out.printf(
        Locale.ROOT,
        "SOAK_VERDICT tasks=%d windows=%d lost=%d dup=%d early=%d p50=%d p99=%d max=%d"
            + " after_judged=%d: %s%n",
        tasksJudged,
        judged,
        totalLost,
        totalDuplicates,
        totalEarly,
        allLateness.getValueAtPercentile(50),
        allLateness.getValueAtPercentile(99),
        allLateness.getMaxValue(),
        afterJudged,
        totalLost + totalDuplicates + totalEarly == 0
            ? "0 lost / duplicated / early"
            : "tasks lost, duplicated or early");
    out.flush();
    List<String> problems = new ArrayList<>();
    if (totalLost > 0) {
      problems.add("soak: " + totalLost + " task(s) never completed");
    }
    if (totalDuplicates > 0) {
      problems.add("soak: " + totalDuplicates + " duplicate completion event(s)");
    }
    if (totalEarly > 0) {
      problems.add("soak: " + totalEarly + " task(s) started before they were due");
    }
    if (judged < plan.windows()) {
      problems.add("soak: stopped after " + judged + " of " + plan.windows() + " windows");
    }
    return problems;
  }

  private void send(int index) {
    TaskCommandJson command =
        TaskCommandJson.create(taskId(index))
            .onceAtMs(firstDueMs + plan.dueOffsetMs(index))
            .inProcess(driver.handler())
            .timeout(TASK_TIMEOUT);
    driver.params().forEach(command::param);
    inFlight.add(driver.kafka().sendCommand(taskId(index), command.toBytes()));
  }

  /** Awaits the sends the broker has answered (all of them with {@code all}): a failure shows. */
  private void confirmSends(boolean all) throws InterruptedException {
    int done = 0;
    for (Future<RecordMetadata> send : inFlight) {
      if (!all && !send.isDone()) {
        break;
      }
      driver.kafka().await(send);
      done++;
    }
    inFlight.subList(0, done).clear();
  }

  private void accept(TaskCompletedEvent event) {
    String id = event.taskId();
    if (id == null || !id.startsWith(prefix + "-")) {
      return;
    }
    int index;
    try {
      index = Integer.parseInt(id.substring(prefix.length() + 1));
    } catch (NumberFormatException e) {
      return;
    }
    if (index < 0 || index >= plan.tasks()) {
      return;
    }
    int window =
        (int) Math.min(plan.windows() - 1, plan.dueOffsetMs(index) / plan.window().toMillis());
    if (lateness[window] == null) {
      afterJudged++; // its window was judged: a duplicate, or a task counted lost that came late
      return;
    }
    if (completed.get(index)) {
      duplicates[window]++;
      return;
    }
    completed.set(index);
    long lateMs = event.startedAtMs() - event.dueAtMs();
    if (lateMs < 0) {
      early[window]++;
    }
    lateness[window].recordValue(Math.max(0, lateMs));
    allLateness.recordValue(Math.max(0, lateMs));
  }

  private void judge(int window, long windowEndMs) throws SQLException {
    int from = plan.tasksBefore(window * plan.window().toMillis());
    int to =
        plan.tasksBefore(
            Math.min(plan.duration().toMillis(), (window + 1) * plan.window().toMillis()));
    int done = completed.get(from, to).cardinality();
    long lost = (to - from) - done;
    totalLost += lost;
    totalDuplicates += duplicates[window];
    totalEarly += early[window];
    long heapAfterGc = heapAfterGcBytes();
    long axRss = axRssBytes();
    long dbRss = CpuTime.embeddedDatabase().map(p -> ProcessMemory.rssBytes(p.pid())).orElse(-1L);
    TableSizes sizes = TableSizes.read(driver.context().dataSource());
    long windowStartMs = firstDueMs + window * plan.window().toMillis();
    Percentiles late = Percentiles.of(lateness[window]);
    // The window's task counts and start lateness, as both lines give them.
    Object[] taskFigures = {
      to - from,
      done,
      lost,
      duplicates[window],
      early[window],
      late.p50Ms(),
      late.p99Ms(),
      late.maxMs()
    };
    long instanceRows = sizes.of("ax_instance").rows();
    long auditRows = sizes.of("ax_instance_log").rows();
    out.printf(
        Locale.ROOT,
        "  %6d  %s  %9d  %9d  %4d  %3d  %5d  %d / %d / %d  %16s  %s / %s  %,d / %,d, %.0f%n",
        FormatArgs.of(
            window + 1,
            Times.clock(windowStartMs).substring(0, 8),
            taskFigures,
            mb(heapAfterGc),
            mb(axRss),
            mb(dbRss),
            instanceRows,
            auditRows,
            TableSizes.mb(sizes.totalBytes())));
    out.printf(
        Locale.ROOT,
        "SOAK window=%d tasks=%d completed=%d lost=%d dup=%d early=%d p50=%d p99=%d max=%d"
            + " heap_after_gc_bytes=%d rss_ax_bytes=%d rss_db_bytes=%d instance_rows=%d"
            + " audit_rows=%d table_bytes=%d%n",
        FormatArgs.of(
            window + 1,
            taskFigures,
            heapAfterGc,
            axRss,
            dbRss,
            instanceRows,
            auditRows,
            sizes.totalBytes()));
    out.flush();
    lateness[window] = null; // judged: its histogram is no longer needed
  }

  /**
   * In-jvm (every stage in this JVM): the heap after a full collection asked for now. Not the heap
   * after the last collection as it happened: under G1 that is a young collection's, which counts
   * every old region not yet reclaimed, so it climbs until a marking cycle (at 45 % of the heap)
   * whether or not anything leaks. The full collection is a pause in the next window's lateness.
   * With stage processes: the ticker's live-data gauge.
   */
  private long heapAfterGcBytes() {
    if (driver.stages().processes().isEmpty()) {
      return ProcessMemory.liveHeapBytes();
    }
    double live = TickerFigures.parse(driver.stages().tickerMetrics()).heapAfterGcBytes();
    return live > 0 ? (long) live : -1;
  }

  /** The resident sets of AX's JVMs: this one, or the stage JVMs. */
  private long axRssBytes() {
    List<ProcessHandle> stages = driver.stages().processes();
    return stages.isEmpty()
        ? ProcessMemory.rssBytes(ProcessHandle.current().pid())
        : ProcessMemory.rssBytes(stages);
  }

  private static String mb(long bytes) {
    return bytes < 0 ? "n/a" : String.format(Locale.ROOT, "%.0f", bytes / (1024.0 * 1024.0));
  }
}
