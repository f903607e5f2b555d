package dev.ax.ticker.reaper;

import static org.assertj.core.api.Assumptions.assumeThat;

import dev.ax.common.store.LeaseFence;
import dev.ax.common.testing.TestRuntime;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A throughput bench, skipped unless {@code -Dax.retention.bench.instances=N}: fills the database
 * with N finished instances older than the retention, three audit rows each (the ratio of a real
 * run), with random task ids (so the instance primary key is in no relation to the due time, as in
 * a real run), then runs the retention thread with the given settings and measures the instances
 * (and rows) it deletes a second. With {@code -Dax.retention.bench.writerRate=R} a writer meanwhile
 * does what R tasks a second do to these tables: one transaction per 50 ms that inserts R/20
 * instances with an audit row each, and one that moves those of a second earlier to SUCCESS with
 * two audit rows each. Other properties: {@code .batch} (500), {@code .maxRate} (20000), {@code
 * .busyPercent} (75), {@code .seconds} (most time measured, 180), {@code .bufferPoolMb} (the
 * embedded server's InnoDB buffer pool for the run; its default is 128 MB). Results go to the log
 * (and stdout) in one line starting "RETENTION BENCH".
 */
@ExtendWith(AxInfraExtension.class)
class RetentionThroughputIT {

  private static final Logger log = LoggerFactory.getLogger(RetentionThroughputIT.class);
  private static final String PREFIX = "ax.retention.bench.";
  private static final Duration RETENTION = Duration.ofHours(1);
  private static final int AUDIT_PER_INSTANCE = 3;
  private static final int ROWS_PER_INSERT = 1000;

  @Test
  void measuresRowsDeletedPerSecond(AxTestEnv env) throws Exception {
    String instancesProperty = System.getProperty(PREFIX + "instances");
    assumeThat(instancesProperty).as("-D" + PREFIX + "instances=N runs the bench").isNotNull();
    int instances = Integer.parseInt(instancesProperty);
    int writerRate = Integer.getInteger(PREFIX + "writerRate", 0);
    int batch = Integer.getInteger(PREFIX + "batch", 500);
    int maxRate = Integer.getInteger(PREFIX + "maxRate", 20_000);
    int busyPercent = Integer.getInteger(PREFIX + "busyPercent", 75);
    int seconds = Integer.getInteger(PREFIX + "seconds", 180);
    int bufferPoolMb = Integer.getInteger(PREFIX + "bufferPoolMb", 0);
    try (TestRuntime runtime = TestRuntime.open(env)) {
      if (bufferPoolMb > 0) {
        try (Connection connection = runtime.dataSource().getConnection();
            Statement statement = connection.createStatement()) {
          // The server is this JVM's own embedded one: resized for this run.
          statement.execute("SET GLOBAL innodb_buffer_pool_size = " + bufferPoolMb * 1024L * 1024);
        }
      }
      long nowMs = runtime.clock().millis();
      long fillStartNanos = System.nanoTime();
      fill(runtime.dataSource(), instances, nowMs - RETENTION.toMillis() - 3_600_000, nowMs);
      Duration fill = Duration.ofNanos(System.nanoTime() - fillStartNanos);
      log.info("Filled {} instances in {}", instances, fill);

      Map<String, Long> statusBefore = serverStatus(runtime.dataSource());
      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      Writer writer = new Writer(runtime.dataSource(), writerRate);
      Thread writing = new Thread(writer::run, "bench-writer");
      if (writerRate > 0) {
        writing.start();
      }
      long startNanos = System.nanoTime();
      long endNanos = startNanos + Duration.ofSeconds(seconds).toNanos();
      double deleted;
      try (RetentionThread thread =
          new RetentionThread(
                  new Retention(
                      new RetentionStore(runtime.dataSource()),
                      runtime.clock(),
                      RETENTION,
                      batch,
                      meters),
                  new RetentionPace(maxRate, busyPercent, Duration.ofMillis(200)),
                  () -> Optional.of(new LeaseFence(LeaseFence.TICKER, "bench", 1)),
                  System::nanoTime,
                  meters)
              .start()) {
        do {
          deleted = meters.get("ax.retention.deleted").tag("kind", "instances").counter().count();
          if (deleted < instances) {
            Thread.sleep(100); // a bench's sampling interval, not a synchronisation
          }
        } while (deleted < instances && System.nanoTime() < endNanos);
      }
      double elapsedS = (System.nanoTime() - startNanos) / 1e9;
      writer.stop();
      writing.join(5_000);
      Map<String, Long> statusAfter = serverStatus(runtime.dataSource());
      StringBuilder server = new StringBuilder();
      statusAfter.forEach(
          (name, value) ->
              server
                  .append(server.isEmpty() ? "" : ", ")
                  .append(name)
                  .append(' ')
                  .append(value - statusBefore.getOrDefault(name, 0L)));
      double audit = meters.get("ax.retention.deleted").tag("kind", "audit").counter().count();
      double busyS = meters.get("ax.retention.busy.seconds").counter().count();
      String line =
          String.format(
              "RETENTION BENCH instances=%d writerRate=%d batch=%d maxRate=%d busyPercent=%d"
                  + " bufferPoolMb=%d:"
                  + " deleted %.0f instances + %.0f audit rows in %.1f s = %.0f instances/s"
                  + " (%.0f rows/s), busy %.1f s; writer %.0f instances/s, its transaction p99"
                  + " %.1f ms, max %.1f ms; fill %d s; server: %s",
              instances,
              writerRate,
              batch,
              maxRate,
              busyPercent,
              bufferPoolMb,
              deleted,
              audit,
              elapsedS,
              deleted / elapsedS,
              (deleted + audit) / elapsedS,
              busyS,
              writer.created.get() / elapsedS,
              writer.p99Ms(),
              writer.maxMs(),
              fill.toSeconds(),
              server);
      log.info(line);
      System.out.println(line);
    }
  }

  /**
   * The server's counters that tell lock waits from page reads: row lock waits and their time (ms),
   * pages read from disk, and the history list (what purge has not removed yet, as of now).
   */
  private static Map<String, Long> serverStatus(DataSource dataSource) throws SQLException {
    Map<String, Long> status = new TreeMap<>();
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs =
            statement.executeQuery(
                "SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_row_lock_waits',"
                    + " 'Innodb_row_lock_time', 'Innodb_buffer_pool_reads',"
                    + " 'Innodb_history_list_length')")) {
      while (rs.next()) {
        status.put(rs.getString(1), rs.getLong(2));
      }
    }
    return status;
  }

  /** N finished instances due between {@code fromMs} and an hour later, three audit rows each. */
  private static void fill(DataSource dataSource, int instances, long fromMs, long nowMs)
      throws SQLException {
    SplittableRandom random = new SplittableRandom(37);
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      connection.setAutoCommit(false);
      for (int start = 0; start < instances; start += ROWS_PER_INSERT) {
        int count = Math.min(ROWS_PER_INSERT, instances - start);
        StringBuilder rows = new StringBuilder();
        StringBuilder audit = new StringBuilder();
        for (int i = 0; i < count; i++) {
          long dueMs = fromMs + (long) (start + i) * 3_600_000 / instances;
          String taskId = "t-" + Long.toHexString(random.nextLong());
          String instanceId = taskId + "@" + dueMs;
          rows.append(rows.isEmpty() ? "" : ",")
              .append(instanceRow(instanceId, taskId, "SUCCESS", dueMs, dueMs + 50));
          for (int a = 0; a < AUDIT_PER_INSTANCE; a++) {
            audit
                .append(audit.isEmpty() ? "" : ",")
                .append(auditRow(instanceId, taskId, dueMs + a * 10L));
          }
        }
        statement.executeUpdate(INSERT_INSTANCE + rows);
        statement.executeUpdate(INSERT_AUDIT + audit);
        connection.commit();
      }
      statement.execute("ANALYZE TABLE ax_instance, ax_instance_log");
      connection.commit();
    }
  }

  private static final String INSERT_INSTANCE =
      "INSERT INTO ax_instance (instance_id, task_id, task_version, status, attempt, due_at_ms,"
          + " trace_id, dispatched_at_ms, claimed_at_ms, finished_at_ms, created_at_ms,"
          + " updated_at_ms) VALUES ";

  private static final String INSERT_AUDIT =
      "INSERT INTO ax_instance_log (instance_id, task_id, attempt, from_status, to_status, actor,"
          + " reason, at_ms) VALUES ";

  private static String instanceRow(
      String instanceId, String taskId, String status, long dueMs, long atMs) {
    return "('%s','%s',1,'%s',1,%d,'0af7651916cd43dd8448eb211c80319c',%d,%d,%d,%d,%d)"
        .formatted(instanceId, taskId, status, dueMs, dueMs, dueMs, atMs, dueMs, atMs);
  }

  private static String auditRow(String instanceId, String taskId, long atMs) {
    return "('%s','%s',1,'SCHEDULED','DISPATCHED','ax-ticker@bench',NULL,%d)"
        .formatted(instanceId, taskId, atMs);
  }

  /**
   * What {@code rate} tasks a second do to the instance and audit tables: every 50 ms, one
   * transaction creates rate/20 instances with an audit row each, and one moves those created a
   * second earlier to SUCCESS with two audit rows each (the dispatch and the outcome).
   */
  private static final class Writer {
    private static final long TICK_MS = 50;
    private final DataSource dataSource;
    private final int rate;
    private final AtomicBoolean stopped = new AtomicBoolean();
    final AtomicLong created = new AtomicLong();
    private final List<Long> transactionNanos = new ArrayList<>();

    Writer(DataSource dataSource, int rate) {
      this.dataSource = dataSource;
      this.rate = rate;
    }

    void stop() {
      stopped.set(true);
    }

    void run() {
      SplittableRandom random = new SplittableRandom(1);
      List<List<String>> recent = new ArrayList<>();
      int perTick = Math.max(1, rate * (int) TICK_MS / 1000);
      long nextNanos = System.nanoTime();
      try (Connection connection = dataSource.getConnection();
          Statement statement = connection.createStatement()) {
        connection.setAutoCommit(false);
        while (!stopped.get()) {
          long nowMs = System.currentTimeMillis();
          List<String> ids = new ArrayList<>();
          StringBuilder rows = new StringBuilder();
          StringBuilder audit = new StringBuilder();
          for (int i = 0; i < perTick; i++) {
            String taskId = "w-" + Long.toHexString(random.nextLong());
            String instanceId = taskId + "@" + nowMs;
            ids.add(instanceId);
            rows.append(rows.isEmpty() ? "" : ",")
                .append(instanceRow(instanceId, taskId, "SCHEDULED", nowMs, nowMs));
            audit.append(audit.isEmpty() ? "" : ",").append(auditRow(instanceId, taskId, nowMs));
          }
          long t0 = System.nanoTime();
          statement.executeUpdate(INSERT_INSTANCE + rows);
          statement.executeUpdate(INSERT_AUDIT + audit);
          connection.commit();
          long t1 = System.nanoTime();
          created.addAndGet(perTick);
          recent.add(ids);
          if (recent.size() > 1000 / TICK_MS) {
            List<String> finishing = recent.remove(0);
            StringBuilder in = new StringBuilder();
            StringBuilder moved = new StringBuilder();
            for (String id : finishing) {
              in.append(in.isEmpty() ? "'" : ",'").append(id).append('\'');
              String taskId = id.substring(0, id.indexOf('@'));
              moved.append(moved.isEmpty() ? "" : ",").append(auditRow(id, taskId, nowMs));
              moved.append(',').append(auditRow(id, taskId, nowMs));
            }
            statement.executeUpdate(
                "UPDATE ax_instance SET status = 'SUCCESS', finished_at_ms = "
                    + nowMs
                    + ", updated_at_ms = "
                    + nowMs
                    + " WHERE instance_id IN ("
                    + in
                    + ")");
            statement.executeUpdate(INSERT_AUDIT + moved);
            connection.commit();
          }
          long t2 = System.nanoTime();
          synchronized (transactionNanos) {
            transactionNanos.add(t1 - t0);
            transactionNanos.add(t2 - t1);
          }
          nextNanos += TICK_MS * 1_000_000;
          long waitNanos = nextNanos - System.nanoTime();
          if (waitNanos > 0) {
            Thread.sleep(waitNanos / 1_000_000, (int) (waitNanos % 1_000_000));
          }
        }
      } catch (SQLException | InterruptedException e) {
        log.error("Bench writer failed", e);
      }
    }

    double p99Ms() {
      synchronized (transactionNanos) {
        if (transactionNanos.isEmpty()) {
          return 0;
        }
        List<Long> sorted = new ArrayList<>(transactionNanos);
        sorted.sort(null);
        return sorted.get((int) (sorted.size() * 0.99)) / 1e6;
      }
    }

    double maxMs() {
      synchronized (transactionNanos) {
        return transactionNanos.stream().mapToLong(Long::longValue).max().orElse(0) / 1e6;
      }
    }
  }
}
