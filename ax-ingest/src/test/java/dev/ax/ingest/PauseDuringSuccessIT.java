package dev.ax.ingest;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.store.BatchMove;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.RawSql;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TestTasks;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A PAUSE and the dispatcher's record of a batch of successes, at once. The PAUSE locks the task's
 * row, then its pending instances; the success batch locks its instances, then (through {@link
 * dev.ax.common.store.OneShotEnd}) the rows of its ONCE tasks only. So a success of a periodic
 * task's run never waits for a PAUSE of that task and no deadlock surfaces from that pair. A PAUSE
 * of a ONCE task and its run's success lock the same two rows in opposite orders: InnoDB may roll
 * one back as a deadlock's victim, which its stage retries. The state they leave is one of the
 * orders: the pause visible, a ONCE task ENDED only when its PAUSE came after its run ended (and
 * was refused: an ENDED task takes no PAUSE).
 */
@ExtendWith(AxInfraExtension.class)
class PauseDuringSuccessIT {

  private static final long T0_MS = 1_900_000_020_000L;
  private static final String OWNER = "dispatcher-1";
  private static final int ROUNDS = 12;

  @Test
  void aSuccessOfAPeriodicRunDoesNotWaitForAnOpenPauseOfItsTask(AxTestEnv env) throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (TestRuntime runtime = TestRuntime.open(env)) {
      DataSource dataSource = runtime.dataSource();
      String instanceId = createRunning(dataSource, cron("hourly"));
      CountDownLatch pausedUncommitted = new CountDownLatch(1);
      CountDownLatch recorded = new CountDownLatch(1);
      Future<TaskLifecycleStore.Result> pause =
          pool.submit(
              () ->
                  new Jdbc(dataSource)
                      .inPacketTransaction(
                          "pausing, held open",
                          tx -> {
                            TaskLifecycleStore.Result result =
                                TaskLifecycleStore.applyIn(
                                    tx,
                                    TaskLifecycleStore.Transition.PAUSE,
                                    pause("hourly"),
                                    new dev.ax.common.kafka.Topics(""));
                            pausedUncommitted.countDown();
                            assertThat(awaited(recorded)).as("success recorded").isTrue();
                            return result;
                          }));
      assertThat(pausedUncommitted.await(30, SECONDS)).isTrue();

      // The PAUSE holds the task's row until the success is recorded: a record that waited for
      // that row would time out after the session's one-second lock wait and fail the test.
      List<String> succeeded = recordSuccesses(dataSource, List.of(instanceId), 1);
      recorded.countDown();

      assertThat(succeeded).containsExactly(instanceId);
      assertThat(pause.get(30, SECONDS)).isInstanceOf(TaskLifecycleStore.Result.Applied.class);
      assertThat(stateOf(dataSource, "hourly")).isEqualTo("PAUSED");
      assertThat(statusOf(dataSource, instanceId)).isEqualTo(InstanceStatus.SUCCESS);
    } finally {
      pool.shutdownNow(); // a thread stuck on a failed run does not outlive the test
    }
  }

  @Test
  void pausesRacingSuccessBatchesLeaveOneOfTheOrders(AxTestEnv env) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (TestRuntime runtime = TestRuntime.open(env)) {
      DataSource dataSource = runtime.dataSource();
      for (int round = 0; round < ROUNDS; round++) {
        String periodic = "cron-" + round;
        String oneShot = "once-" + round;
        List<String> runs =
            List.of(
                createRunning(dataSource, cron(periodic)),
                createRunning(dataSource, once(oneShot)));
        CountDownLatch start = new CountDownLatch(1);
        Future<List<TaskLifecycleStore.Result>> pauses =
            pool.submit(
                () -> {
                  start.await();
                  TaskLifecycleStore lifecycle = new TaskLifecycleStore(dataSource);
                  TaskLifecycleStore.Result periodicPause =
                      lifecycle.apply(TaskLifecycleStore.Transition.PAUSE, pause(periodic));
                  return List.of(
                      periodicPause,
                      deadlockRetried(
                          () ->
                              lifecycle.apply(
                                  TaskLifecycleStore.Transition.PAUSE, pause(oneShot))));
                });
        Future<List<String>> successes =
            pool.submit(
                () -> {
                  start.await();
                  return deadlockRetried(() -> recordSuccesses(dataSource, runs, 10));
                });
        start.countDown();

        // The periodic PAUSE may not meet a deadlock at all; the ONCE PAUSE and the success batch
        // lock the ONCE task's row and its instance in opposite orders, so InnoDB may roll one of
        // them back, and it is retried as the ingest and dispatcher loops retry a lost transaction.
        // Anything else (a lock wait timeout, a second deadlock in a row) fails the test.
        List<TaskLifecycleStore.Result> paused = pauses.get(30, SECONDS);
        assertThat(successes.get(30, SECONDS)).containsExactlyInAnyOrderElementsOf(runs);

        assertThat(paused.get(0)).isInstanceOf(TaskLifecycleStore.Result.Applied.class);
        assertThat(stateOf(dataSource, periodic)).as("round %d", round).isEqualTo("PAUSED");
        boolean oneShotPaused = paused.get(1) instanceof TaskLifecycleStore.Result.Applied;
        assertThat(stateOf(dataSource, oneShot))
            .as("round %d: PAUSE %s", round, paused.get(1))
            .isEqualTo(oneShotPaused ? "PAUSED" : "ENDED");
        for (String run : runs) {
          assertThat(statusOf(dataSource, run)).isEqualTo(InstanceStatus.SUCCESS);
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Runs {@code work}, once more if InnoDB chose it as a deadlock's victim: the rolled-back
   * transaction left nothing behind, so running it again is what a stage's loop does.
   */
  private static <T> T deadlockRetried(java.util.concurrent.Callable<T> work) throws Exception {
    try {
      return work.call();
    } catch (RuntimeException e) {
      if (!isDeadlock(e)) {
        throw e;
      }
      return work.call();
    }
  }

  private static boolean isDeadlock(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && "40001".equals(sql.getSQLState())) {
        return true;
      }
      if (t.getMessage() != null && t.getMessage().contains("Deadlock found")) {
        return true;
      }
    }
    return false;
  }

  /** Creates {@code spec}'s task with its first instance RUNNING for {@link #OWNER}. */
  private static String createRunning(DataSource dataSource, TaskSpec spec) throws SQLException {
    new TaskStore(dataSource).create(List.of(new NewTask(spec, "trace", T0_MS)), "test", T0_MS);
    String instanceId = InstanceIds.of(spec.taskId(), T0_MS);
    RawSql.execute(
        dataSource,
        "UPDATE ax_instance SET status = 'RUNNING', attempt = 1, owner = '"
            + OWNER
            + "' WHERE instance_id = '"
            + instanceId
            + "'");
    return instanceId;
  }

  /**
   * RUNNING → SUCCESS for {@code instanceIds} in one batch move, as the dispatcher records a batch
   * of successes, on a session whose lock wait is {@code lockWaitS} seconds.
   */
  private static List<String> recordSuccesses(
      DataSource dataSource, List<String> instanceIds, int lockWaitS) {
    return new Jdbc(dataSource)
        .inPacketTransaction(
            "recording successes",
            tx -> {
              setLockWait(tx.connection(), Integer.toString(lockWaitS));
              try {
                return tx.move(
                    "instance_id",
                    instanceIds,
                    BatchMove.from(InstanceStatus.RUNNING)
                        .<String>to(InstanceStatus.SUCCESS)
                        .set("finished_at_ms = ?, lease_until_ms = NULL", T0_MS + 50)
                        .where("attempt = 1 AND owner = ?", OWNER)
                        .readBack("instance_id", rs -> rs.getString(1))
                        .audit(OWNER, "completed"),
                    T0_MS + 60,
                    false);
              } finally {
                setLockWait(tx.connection(), "DEFAULT");
              }
            });
  }

  private static void setLockWait(java.sql.Connection session, String seconds) throws SQLException {
    try (Statement set = session.createStatement()) {
      set.execute("SET SESSION innodb_lock_wait_timeout = " + seconds);
    }
  }

  /** Waits up to 30 s for {@code latch}; false if it did not open (or the wait was interrupted). */
  private static boolean awaited(CountDownLatch latch) {
    try {
      return latch.await(30, SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static TaskSpec cron(String taskId) {
    return TestTasks.noop(taskId, new Trigger.Cron("0 0 * * * ?", ZoneOffset.UTC));
  }

  private static TaskSpec once(String taskId) {
    return TestTasks.noop(taskId, Trigger.Once.after(Duration.ofMillis(5)));
  }

  private static TaskLifecycleStore.Request pause(String taskId) {
    return new TaskLifecycleStore.Request(
        "pause-" + taskId, taskId, null, null, "trace", "test", T0_MS + 100, false);
  }

  private static String stateOf(DataSource dataSource, String taskId) {
    return new TaskStore(dataSource).find(taskId).orElseThrow().state().name();
  }

  private static InstanceStatus statusOf(DataSource dataSource, String instanceId) {
    return new InstanceStore(dataSource).find(instanceId).map(InstanceRow::status).orElseThrow();
  }
}
