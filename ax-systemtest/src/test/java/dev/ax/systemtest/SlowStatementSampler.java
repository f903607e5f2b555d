package dev.ax.systemtest;

import com.zaxxer.hikari.HikariDataSource;
import dev.ax.common.thread.DaemonThreads;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Asks the database every 100 ms, on a thread of its own, which statements have been running for
 * over {@link #SLOW_MS} and which transactions wait for a lock, and keeps each one once (with the
 * longest time seen): what held the stages up when they all started late together while plain reads
 * were fast.
 *
 * <p>MariaDB only ({@code information_schema.PROCESSLIST.TIME_MS}). Thread-safe: the findings are
 * guarded by {@code this}.
 */
final class SlowStatementSampler implements AutoCloseable {

  static final long SLOW_MS = 100;
  private static final long EVERY_MS = 100;
  private static final long SAME_EXECUTION_MS = 200;

  private static final String STATEMENTS =
      "SELECT ID, CAST(TIME_MS AS SIGNED), COALESCE(STATE, ''), LEFT(INFO, 240)"
          + " FROM information_schema.PROCESSLIST"
          + " WHERE COMMAND <> 'Sleep' AND TIME_MS > "
          + SLOW_MS
          + " AND INFO IS NOT NULL AND ID <> CONNECTION_ID()";

  /**
   * Each lock wait with the lock asked for (mode, type, table, index) and the transaction that
   * holds it: how long it has been open, how many rows it locked, and what it runs now, if anything
   * (nothing: it waits between two statements of its client).
   */
  private static final String LOCK_WAITS =
      "SELECT r.trx_mysql_thread_id,"
          + " CAST(TIMESTAMPDIFF(MICROSECOND, r.trx_wait_started, NOW(6)) / 1000 AS SIGNED),"
          + " CONCAT('lock wait for ', l.lock_mode, ' ', l.lock_type, ' on ', l.lock_table,"
          + " COALESCE(CONCAT(' index ', l.lock_index), ''), ' held by thread ',"
          + " b.trx_mysql_thread_id, ' (trx open ',"
          + " CAST(TIMESTAMPDIFF(MICROSECOND, b.trx_started, NOW(6)) / 1000 AS SIGNED),"
          + " ' ms, ', b.trx_rows_locked, ' rows locked, ', b.trx_rows_modified, ' modified,"
          + " running: ', COALESCE(LEFT(b.trx_query, 160), 'nothing'), ')'),"
          + " LEFT(COALESCE(r.trx_query, ''), 240)"
          + " FROM information_schema.INNODB_LOCK_WAITS w"
          + " JOIN information_schema.INNODB_TRX r ON r.trx_id = w.requesting_trx_id"
          + " JOIN information_schema.INNODB_TRX b ON b.trx_id = w.blocking_trx_id"
          + " JOIN information_schema.INNODB_LOCKS l ON l.lock_id = w.requested_lock_id";

  /** InnoDB's counters of page flushes and fsyncs, read with every sample. */
  private static final String FLUSH_COUNTERS =
      "SELECT"
          + " SUM(IF(VARIABLE_NAME = 'INNODB_BUFFER_POOL_PAGES_FLUSHED', VARIABLE_VALUE, 0)),"
          + " SUM(IF(VARIABLE_NAME = 'INNODB_DATA_FSYNCS', VARIABLE_VALUE, 0)),"
          + " SUM(IF(VARIABLE_NAME = 'INNODB_BUFFER_POOL_PAGES_DIRTY', VARIABLE_VALUE, 0))"
          + " FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME IN"
          + " ('INNODB_BUFFER_POOL_PAGES_FLUSHED', 'INNODB_DATA_FSYNCS',"
          + " 'INNODB_BUFFER_POOL_PAGES_DIRTY')";

  /** Counters since the server started, read at {@code atMs}. */
  record Flushes(long atMs, long pagesFlushed, long fsyncs, long pagesDirty) {}

  /** A statement seen running (or waiting) for {@code longestMs}, first seen at {@code atMs}. */
  record Finding(long atMs, long longestMs, String state, String sql) {}

  private final HikariDataSource dataSource;
  private final List<Finding> findings = new ArrayList<>();
  private final List<Flushes> flushes = new ArrayList<>();
  private final Map<String, Integer> latestByKey = new HashMap<>();
  private final Thread thread;
  private volatile boolean closed;
  private final java.util.concurrent.atomic.AtomicReference<String> refused =
      new java.util.concurrent.atomic.AtomicReference<>();

  private SlowStatementSampler(HikariDataSource dataSource) {
    this.dataSource = dataSource;
    this.thread = DaemonThreads.thread("slow-statement-sampler", this::run);
  }

  static SlowStatementSampler start(String jdbcUrl, String user, String password) {
    SlowStatementSampler sampler =
        new SlowStatementSampler(
            LeaseSampler.probePool(jdbcUrl, user, password, "slow-statement-sampler"));
    sampler.thread.start();
    return sampler;
  }

  private void run() {
    while (!closed) {
      long nowMs = System.currentTimeMillis();
      try (Connection connection = dataSource.getConnection();
          Statement statement = connection.createStatement()) {
        try (ResultSet rows = statement.executeQuery(FLUSH_COUNTERS)) {
          if (rows.next()) {
            Flushes reading =
                new Flushes(
                    System.currentTimeMillis(), rows.getLong(1), rows.getLong(2), rows.getLong(3));
            synchronized (this) {
              flushes.add(reading);
            }
          }
        }
        for (String query : List.of(STATEMENTS, LOCK_WAITS)) {
          try (ResultSet rows = statement.executeQuery(query)) {
            while (rows.next()) {
              keep(nowMs, rows.getLong(1), rows.getLong(2), rows.getString(3), rows.getString(4));
            }
          }
        }
      } catch (Exception e) {
        // The database away (a fault of the run): nothing to see; a query the server refuses
        // is a bug of this sampler, reported once.
        if (e instanceof java.sql.SQLSyntaxErrorException) {
          refused.compareAndSet(null, e.getMessage());
        }
      }
      try {
        Thread.sleep(EVERY_MS); // the sampling period
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /**
   * One execution is one (thread, state, statement) whose start ({@code now - ms}) stays within the
   * sampling jitter; a later start is a new execution.
   */
  private synchronized void keep(long nowMs, long threadId, long ms, String state, String sql) {
    String key = threadId + "|" + state.startsWith("lock wait") + "|" + sql;
    long startedMs = nowMs - ms;
    Integer index = latestByKey.get(key);
    if (index != null && Math.abs(startedMs - findings.get(index).atMs()) <= SAME_EXECUTION_MS) {
      Finding earlier = findings.get(index);
      if (ms > earlier.longestMs()) {
        findings.set(index, new Finding(earlier.atMs(), ms, state, sql));
      }
      return;
    }
    latestByKey.put(key, findings.size());
    findings.add(new Finding(startedMs, ms, state, sql));
  }

  /** The server's reason if it refused one of the sampler's queries (a bug of this class). */
  java.util.Optional<String> refused() {
    return java.util.Optional.ofNullable(refused.get());
  }

  /**
   * Pages InnoDB flushed and fsyncs it made from {@code fromMs} to {@code toMs}, and the most dirty
   * pages seen then (counters restart with the server: a drop is skipped).
   */
  synchronized String flushesBetween(long fromMs, long toMs) {
    long pages = 0;
    long fsyncs = 0;
    long dirtyMax = 0;
    Flushes previous = null;
    for (Flushes f : flushes) {
      if (previous != null
          && f.atMs() >= fromMs
          && f.atMs() <= toMs
          && f.pagesFlushed() >= previous.pagesFlushed()) {
        pages += f.pagesFlushed() - previous.pagesFlushed();
        fsyncs += f.fsyncs() - previous.fsyncs();
        dirtyMax = Math.max(dirtyMax, f.pagesDirty());
      }
      previous = f;
    }
    return "innodb flushed " + pages + " pages, " + fsyncs + " fsyncs, dirty max " + dirtyMax;
  }

  /** Every finding, in the order first seen. */
  synchronized List<Finding> findings() {
    return List.copyOf(findings);
  }

  @Override
  public void close() {
    closed = true;
    thread.interrupt();
    dataSource.close();
  }
}
