package dev.ax.bench;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskSpecJson;
import dev.ax.common.model.ConcurrencyPolicy;
import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.MisfirePolicy;
import dev.ax.common.model.RetryPolicy;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.TaskState;
import dev.ax.common.model.Trigger;
import dev.ax.common.stage.StageContext;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * Loads {@code ax bench --history}: finished one-shot tasks as a long-running deployment holds
 * them. Per history row: the task ({@code ENDED}, group {@value #GROUP}, version 1, a noop ONCE
 * spec as ingest stores it), its one instance ({@code SUCCESS}, one attempt) and the four audit
 * rows a successful run writes (created SCHEDULED, DISPATCHED by the ticker, RUNNING and SUCCESS by
 * the dispatcher). Rows go in with multi-row INSERTs of literal values, {@value #BATCH_ROWS}
 * history rows (six tables' worth of statements) per transaction, over {@code connections}
 * connections at once, each on a thread of its own; nothing the database guarantees is switched
 * off.
 *
 * <p>Task ids are {@code <prefix>-<index, 10 digits>}, instance ids {@code <task id>@<due ms>}, so
 * a history can be told apart from the workload's rows. Not thread-safe: {@link #load} is called by
 * one thread, which waits for its own workers.
 */
final class AgedDatabase {

  static final String GROUP = "bench-history";
  static final int BATCH_ROWS = 1_000;
  static final String ENDED = TaskState.ENDED.name();

  private static final Duration PROGRESS_EVERY = Duration.ofSeconds(10);

  /** Audit rows per history row: what a successful ONCE run leaves in ax_instance_log. */
  static final int AUDIT_ROWS_PER_INSTANCE = 4;

  /** What a load wrote and how long it took. */
  record Loaded(long tasks, long instances, long auditRows, long elapsedMs) {

    long rows() {
      return tasks + instances + auditRows;
    }

    double rowsPerSecond() {
      return rows() * 1000.0 / Math.max(1, elapsedMs);
    }

    double instancesPerSecond() {
      return instances * 1000.0 / Math.max(1, elapsedMs);
    }
  }

  private final DataSource dataSource;
  private final BenchHistory history;
  private final String prefix;
  private final long nowMs;
  private final String specTemplate;

  /**
   * @param prefix [a-z0-9-] only: the history's task ids start with it
   * @param nowMs the database clock when the load starts: ages count back from it
   */
  AgedDatabase(DataSource dataSource, BenchHistory history, String prefix, long nowMs) {
    if (!prefix.matches("[a-z0-9-]+")) {
      throw new IllegalArgumentException("prefix must match [a-z0-9-]+: " + prefix);
    }
    this.dataSource = dataSource;
    this.history = history;
    this.prefix = prefix;
    this.nowMs = nowMs;
    this.specTemplate = sqlString(AxJson.writeString(TaskSpecJson.write(spec("__ID__"))));
  }

  /** The id of history row {@code index}. */
  String taskId(long index) {
    return String.format(Locale.ROOT, "%s-%010d", prefix, index);
  }

  /**
   * Loads every row over {@code connections} connections, printing progress every 10 s.
   *
   * @throws SQLException the first statement that failed (the other workers are stopped)
   */
  Loaded load(int connections, PrintWriter out) throws SQLException, InterruptedException {
    long startNs = System.nanoTime();
    long batches = (history.rows() + BATCH_ROWS - 1) / BATCH_ROWS;
    AtomicLong nextBatch = new AtomicLong();
    AtomicLong loadedRows = new AtomicLong();
    ExecutorService workers = Executors.newFixedThreadPool(connections);
    List<Future<?>> running = new ArrayList<>();
    try {
      for (int c = 0; c < connections; c++) {
        running.add(
            workers.submit(
                () -> {
                  try (Connection connection = dataSource.getConnection();
                      Statement statement = connection.createStatement()) {
                    connection.setAutoCommit(false);
                    for (long b = nextBatch.getAndIncrement();
                        b < batches;
                        b = nextBatch.getAndIncrement()) {
                      long from = b * BATCH_ROWS;
                      long to = Math.min(history.rows(), from + BATCH_ROWS);
                      insertBatch(statement, from, to);
                      connection.commit();
                      loadedRows.addAndGet(to - from);
                      if (Thread.currentThread().isInterrupted()) {
                        return null;
                      }
                    }
                  }
                  return null;
                }));
      }
      workers.shutdown();
      long nextProgressNs = startNs + PROGRESS_EVERY.toNanos();
      while (!workers.awaitTermination(200, TimeUnit.MILLISECONDS)) {
        for (Future<?> f : running) {
          if (f.isDone()) {
            rethrow(f); // a failed worker stops the load
          }
        }
        if (System.nanoTime() >= nextProgressNs) {
          long done = loadedRows.get();
          double seconds = (System.nanoTime() - startNs) / 1e9;
          out.printf(
              Locale.ROOT,
              "  history: %,d / %,d rows (%,.0f rows/s)%n",
              done,
              history.rows(),
              done / seconds);
          out.flush();
          nextProgressNs += PROGRESS_EVERY.toNanos();
        }
      }
      for (Future<?> f : running) {
        rethrow(f);
      }
    } finally {
      workers.shutdownNow();
    }
    long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
    long rows = history.rows();
    return new Loaded(rows, rows, rows * AUDIT_ROWS_PER_INSTANCE, elapsedMs);
  }

  private static void rethrow(Future<?> f) throws SQLException, InterruptedException {
    if (!f.isDone()) {
      return;
    }
    try {
      f.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof SQLException sql) {
        throw sql;
      }
      throw new IllegalStateException("history load failed", e.getCause());
    }
  }

  /** Rows {@code from} (inclusive) to {@code to} of the history, on the caller's transaction. */
  void insertBatch(Statement statement, long from, long to) throws SQLException {
    int n = (int) (to - from);
    StringBuilder tasks = new StringBuilder(n * (specTemplate.length() + 160));
    StringBuilder instances = new StringBuilder(n * 260);
    StringBuilder audit = new StringBuilder(n * 4 * 150);
    tasks.append(
        "INSERT INTO ax_task (task_id, version, task_group, trigger_type, state, spec_json,"
            + " trace_id, created_at_ms, updated_at_ms, trigger_group) VALUES ");
    instances.append(
        "INSERT INTO ax_instance (instance_id, task_id, task_version, status, attempt, due_at_ms,"
            + " trace_id, owner, epoch, dispatched_at_ms, claimed_at_ms, finished_at_ms,"
            + " created_at_ms, updated_at_ms) VALUES ");
    audit.append(
        "INSERT INTO ax_instance_log (instance_id, task_id, attempt, from_status, to_status,"
            + " actor, reason, at_ms) VALUES ");
    for (long i = from; i < to; i++) {
      String taskId = taskId(i);
      long finishedMs = nowMs - history.ageMs(i);
      long dueMs = finishedMs - 20;
      long createdMs = dueMs - 60_000;
      long dispatchedMs = dueMs - 100;
      long claimedMs = dueMs + 3;
      long startedMs = dueMs + 5;
      String instanceId = taskId + "@" + dueMs;
      String trace = "'trace-" + taskId + "'";
      String sep = i == from ? "" : ",";
      tasks
          .append(sep)
          .append("('")
          .append(taskId)
          .append("',1,'" + GROUP + "','ONCE','" + ENDED + "',")
          .append(specTemplate.replace("__ID__", taskId))
          .append(',')
          .append(trace)
          .append(',')
          .append(createdMs)
          .append(',')
          .append(finishedMs)
          .append(",'ONCE')");
      instances
          .append(sep)
          .append("('")
          .append(instanceId)
          .append("','")
          .append(taskId)
          .append("',1,'SUCCESS',1,")
          .append(dueMs)
          .append(',')
          .append(trace)
          .append(",'bench-history-dispatcher',1,")
          .append(dispatchedMs)
          .append(',')
          .append(claimedMs)
          .append(',')
          .append(finishedMs)
          .append(',')
          .append(createdMs)
          .append(',')
          .append(finishedMs)
          .append(')');
      audit.append(sep);
      appendAuditRows(audit, instanceId, taskId, createdMs, dispatchedMs, startedMs, finishedMs);
    }
    statement.executeUpdate(tasks.toString());
    statement.executeUpdate(instances.toString());
    statement.executeUpdate(audit.toString());
  }

  /**
   * Appends the {@value #AUDIT_ROWS_PER_INSTANCE} audit rows of one successful run, as its stages
   * write them: created, dispatched, running, succeeded.
   */
  private static void appendAuditRows(
      StringBuilder audit,
      String instanceId,
      String taskId,
      long createdMs,
      long dispatchedMs,
      long startedMs,
      long finishedMs) {
    String head = "('" + instanceId + "','" + taskId + "',";
    audit
        .append(head)
        .append("0,NULL,'SCHEDULED','ingest@bench-history','created',")
        .append(createdMs)
        .append("),")
        .append(head)
        .append("0,'SCHEDULED','DISPATCHED','ticker@bench-history',NULL,")
        .append(dispatchedMs)
        .append("),")
        .append(head)
        .append("1,'DISPATCHED','RUNNING','dispatcher@bench-history',NULL,")
        .append(startedMs)
        .append("),")
        .append(head)
        .append("1,'RUNNING','SUCCESS','dispatcher@bench-history',NULL,")
        .append(finishedMs)
        .append(')');
  }

  /** The spec of a history task: a noop ONCE task of the history's group, as ingest stores it. */
  private static TaskSpec spec(String taskId) {
    return new TaskSpec(
        taskId,
        GROUP,
        Trigger.Once.after(Duration.ZERO),
        ExecutorSpec.inProcess("noop"),
        Duration.ofSeconds(30),
        RetryPolicy.DEFAULT,
        Map.of(),
        MisfirePolicy.DEFAULT,
        MisfirePolicy.DEFAULT_MAX_FIRE_ALL,
        true,
        ConcurrencyPolicy.DEFAULT);
  }

  /**
   * Audit rows per instance among the instances whose ids start with {@code instanceIdPrefix}
   * ([a-z0-9-] only): what a measured run really wrote, printed beside the history's {@value
   * #AUDIT_ROWS_PER_INSTANCE}; 0 when there is no such instance.
   */
  static double auditRowsPerInstance(DataSource dataSource, String instanceIdPrefix)
      throws SQLException {
    try (Connection connection = dataSource.getConnection();
        java.sql.PreparedStatement statement =
            connection.prepareStatement(
                "SELECT COUNT(*), COUNT(DISTINCT instance_id) FROM ax_instance_log"
                    + " WHERE instance_id LIKE ?")) {
      statement.setString(1, instanceIdPrefix + "%");
      try (java.sql.ResultSet rs = statement.executeQuery()) {
        rs.next();
        long instances = rs.getLong(2);
        return instances == 0 ? 0 : (double) rs.getLong(1) / instances;
      }
    }
  }

  /** {@code text} as a SQL string literal (quotes and backslashes escaped). */
  static String sqlString(String text) {
    return "'" + text.replace("\\", "\\\\").replace("'", "''") + "'";
  }

  /**
   * Loads {@code --history} through the bench's pool and prints how fast; the table sizes after it.
   */
  static TableSizes loadReported(
      BenchHistory history, StageContext context, String runId, PrintWriter out)
      throws java.sql.SQLException, InterruptedException {
    out.printf(
        Locale.ROOT,
        "History: loading %,d finished one-shot tasks (%d%% past the retention cutoff of %s)"
            + " over %d connections...%n",
        history.rows(),
        history.expiredPercent(),
        BenchCommand.text(history.retention()),
        BenchCommand.HISTORY_CONNECTIONS);
    out.flush();
    AgedDatabase aged =
        new AgedDatabase(
            context.dataSource(),
            history,
            "hist-" + runId.substring(runId.indexOf('-') + 1),
            context.clock().millis());
    AgedDatabase.Loaded loaded = aged.load(BenchCommand.HISTORY_CONNECTIONS, out);
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
}
