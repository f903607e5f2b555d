package dev.ax.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskDueEvent;
import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.RetryPolicy;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.TcpProxy;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TestTasks;
import dev.ax.dispatcher.lease.LeasePool;
import dev.ax.embedded.DatabaseCoordinates;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The dispatcher's run leases against a real database: renewed until the outcome is recorded, on a
 * pool of their own, again as soon as the database answers, and a run whose row is no longer this
 * dispatcher's is interrupted. Each stage here is configured with a JDBC URL, so it opens its own
 * lease pool ({@link LeasePool}); the stage's work uses the test runtime's pool.
 */
@ExtendWith(AxInfraExtension.class)
class DispatcherLeaseIT {

  private static final Duration DEADLINE = Duration.ofSeconds(30);

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private TestRuntime runtime;
  private KafkaProducer<String, byte[]> producer;

  @AfterEach
  void tearDown() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    producer.close();
    runtime.close();
  }

  /** A runtime whose stages renew their leases through {@code leaseJdbcUrl}. */
  private void open(AxTestEnv env, String leaseJdbcUrl, Map<String, String> config) {
    DatabaseCoordinates db = env.database();
    Map<String, String> all = new HashMap<>(config);
    all.put("AX_JDBC_URL", leaseJdbcUrl);
    all.put("AX_JDBC_USER", db.user());
    all.put("AX_JDBC_PASSWORD", db.password());
    runtime = TestRuntime.open(env, all);
    producer = KafkaClients.producer(runtime.kafka(), "test-producer");
  }

  private void dispatcher(String nodeId) {
    closeables.add(
        new DispatcherStage(runtime.context(nodeId), DispatcherConfig.from(runtime.config()))
            .start());
  }

  /** Stores a task running the blocking handler, DISPATCHED now, and emits its due event. */
  private String emitBlocking(String taskId) throws Exception {
    long dueAtMs = runtime.clock().millis();
    TaskSpec spec =
        TestTasks.spec(
            taskId,
            "default",
            Trigger.Once.after(Duration.ZERO),
            ExecutorSpec.inProcess("block"),
            Duration.ofMinutes(2),
            RetryPolicy.DEFAULT,
            Map.of());
    new TaskStore(runtime.dataSource())
        .create(List.of(new NewTask(spec, "trace-" + taskId, dueAtMs)), "test", dueAtMs);
    String id = InstanceIds.of(taskId, dueAtMs);
    assertThat(runtime.markDispatchedAsLeader("test-ticker", List.of(id), dueAtMs)).hasSize(1);
    TaskDueEvent event =
        TestTasks.dueEvent(taskId, id, dueAtMs, 0, dueAtMs, "trace-" + taskId, null);
    producer.send(new ProducerRecord<>(runtime.topics().due(), taskId, AxJson.write(event))).get();
    return id;
  }

  private InstanceRow awaitStatus(String id, InstanceStatus status) {
    InstanceStore instances = new InstanceStore(runtime.dataSource());
    await()
        .atMost(DEADLINE)
        .until(() -> instances.find(id).map(InstanceRow::status).orElse(null) == status);
    return instances.find(id).orElseThrow();
  }

  /**
   * An attempt that ended is still renewed while its outcome waits to be recorded: here the stage's
   * own pool is exhausted (as by a database that stalls the recorder), the lease pool is not. Its
   * lease is extended past one lease after the run ended, so the reaper cannot take back (and run
   * again) an attempt that ran; once the pool is free the outcome is recorded.
   */
  @Test
  void anEndedAttemptKeepsItsLeaseUntilItsOutcomeIsRecorded(AxTestEnv env) throws Exception {
    open(env, env.database().jdbcUrl(), Map.of("AX_DISPATCHER_LEASE", "5s"));
    dispatcher("disp-stalled");
    String id = emitBlocking("ended-unrecorded");
    await().atMost(DEADLINE).until(() -> BlockingExecutor.STARTED.contains(id));

    List<Connection> held = new ArrayList<>();
    try {
      for (int i = 0; i < runtime.dataSource().getMaximumPoolSize(); i++) {
        held.add(runtime.dataSource().getConnection()); // the recorder gets none now
      }
      BlockingExecutor.release(id);
      long endedAtMs = runtime.clock().millis();
      Connection probe = held.get(0);

      await()
          .atMost(DEADLINE)
          .untilAsserted(
              () ->
                  assertThat(leaseUntilMs(probe, id))
                      .as("lease renewed after the run ended, its outcome unrecorded")
                      .isGreaterThan(endedAtMs + 5_000));
      assertThat(status(probe, id)).as("not recorded yet").isEqualTo("RUNNING");
    } finally {
      for (Connection connection : held) {
        connection.close();
      }
    }
    InstanceRow row = awaitStatus(id, InstanceStatus.SUCCESS);
    assertThat(row.attempt()).as("ran once").isEqualTo(1);
  }

  /**
   * A dispatcher whose lease renewal finds its attempt's row held by someone else (taken back by
   * the reaper and claimed as the next attempt elsewhere) interrupts the run and records nothing:
   * the row stays the other dispatcher's.
   */
  @Test
  void aRunWhoseRowWasTakenBackIsInterruptedAndRecordsNothing(AxTestEnv env) throws Exception {
    open(env, env.database().jdbcUrl(), Map.of("AX_DISPATCHER_LEASE", "5s"));
    dispatcher("disp-first");
    String id = emitBlocking("taken-back");
    await().atMost(DEADLINE).until(() -> BlockingExecutor.STARTED.contains(id));

    try (Connection connection = runtime.dataSource().getConnection();
        PreparedStatement takeBack =
            connection.prepareStatement(
                "UPDATE ax_instance SET owner = 'disp-second', attempt = attempt + 1,"
                    + " lease_until_ms = ? WHERE instance_id = ? AND status = 'RUNNING'")) {
      takeBack.setLong(1, runtime.clock().millis() + 60_000);
      takeBack.setString(2, id);
      assertThat(takeBack.executeUpdate()).isEqualTo(1);
    }

    await().atMost(DEADLINE).until(() -> BlockingExecutor.INTERRUPTED.contains(id));
    InstanceRow row = new InstanceStore(runtime.dataSource()).find(id).orElseThrow();
    assertThat(row.status()).isEqualTo(InstanceStatus.RUNNING);
    assertThat(row.owner()).as("still the other dispatcher's").isEqualTo("disp-second");
    assertThat(row.attempt()).isEqualTo(2);
  }

  /**
   * After the lease pool's database was away, the first renewal comes within about a second of its
   * return, not a third of a lease (10 s here) later.
   */
  @Test
  void leasesAreRenewedWithinASecondOfTheDatabasesReturn(AxTestEnv env) throws Exception {
    DatabaseCoordinates db = env.database();
    try (TcpProxy proxy = TcpProxy.inFrontOf(db)) {
      open(env, proxy.jdbcUrl(db), Map.of("AX_DISPATCHER_LEASE", "30s"));
      long startedAtMs = runtime.clock().millis();
      dispatcher("disp-outage");
      String id = emitBlocking("outage");
      await().atMost(DEADLINE).until(() -> BlockingExecutor.STARTED.contains(id));

      proxy.cut();
      // Past the first renewal (a third of the lease after the start), which fails, and well
      // before the second one (two thirds), when a renewer that waits a third of a lease after a
      // failure would try again.
      long restoreAtMs = startedAtMs + 14_000;
      await()
          .atMost(DEADLINE)
          .pollInterval(Duration.ofMillis(50))
          .until(() -> runtime.clock().millis() >= restoreAtMs);
      proxy.restore();
      long restoredMs = runtime.clock().millis();

      try (Connection connection = runtime.dataSource().getConnection()) {
        // A pass that began up to a borrow timeout (1 s) before the return succeeds with it.
        await()
            .atMost(Duration.ofSeconds(4))
            .untilAsserted(
                () ->
                    assertThat(leaseUntilMs(connection, id))
                        .as("renewed as the database came back")
                        .isGreaterThanOrEqualTo(restoredMs - 1_500 + 30_000));
      }
      BlockingExecutor.release(id);
      awaitStatus(id, InstanceStatus.SUCCESS);
    }
  }

  private static long leaseUntilMs(Connection connection, String id) throws SQLException {
    return Long.parseLong(column(connection, id, "lease_until_ms"));
  }

  private static String status(Connection connection, String id) throws SQLException {
    return column(connection, id, "status");
  }

  private static String column(Connection connection, String id, String column)
      throws SQLException {
    try (PreparedStatement select =
        connection.prepareStatement(
            "SELECT " + column + " FROM ax_instance WHERE instance_id = ?")) {
      select.setString(1, id);
      try (ResultSet rows = select.executeQuery()) {
        assertThat(rows.next()).as("row of %s", id).isTrue();
        return rows.getString(1);
      }
    }
  }
}
