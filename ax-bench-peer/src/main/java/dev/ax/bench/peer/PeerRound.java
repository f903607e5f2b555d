package dev.ax.bench.peer;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.SchedulableInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * One round of the bench's workload through db-scheduler: {@code tasks} one-time tasks due evenly
 * over {@code spread} from {@code dueIn} after now, each a no-op that records its start lateness,
 * on a scheduler started for the round and stopped after it (so no poller of the peer runs while AX
 * is measured). Not thread-safe: run by the peer's main thread, one round at a time.
 *
 * @param table db-scheduler's table, created by {@link PeerTable}
 * @param patience how long after the last due time to wait for executions before counting the rest
 *     as missing
 */
record PeerRound(
    DataSource dataSource, String table, PeerSettings settings, Clock clock, Duration patience) {

  private static final String TASK_NAME = "ax-bench-peer";

  /** db-scheduler's scheduleBatch writes this many rows per statement batch. */
  private static final int SCHEDULE_CHUNK = 1_000;

  /** Runs the round and returns what it measured; interrupted, it stops the scheduler first. */
  PeerOutcome run(String runId, int tasks, Duration dueIn, Duration spread)
      throws InterruptedException {
    PeerRecorder recorder = new PeerRecorder(clock, tasks);
    OneTimeTask<Void> task =
        Tasks.oneTime(TASK_NAME)
            .execute(
                (instance, context) ->
                    recorder.started(
                        instance.getId(), context.getExecution().executionTime.toEpochMilli()));
    Scheduler scheduler =
        settings
            .applyTo(Scheduler.create(dataSource, task))
            .tableName(table)
            .alwaysPersistTimestampInUTC()
            .build();
    long cpuStartNanos = cpuNanos();
    scheduler.start();
    try {
      long firstDueAtMs = clock.millis() + dueIn.toMillis();
      List<SchedulableInstance<?>> chunk = new ArrayList<>(SCHEDULE_CHUNK);
      for (int i = 0; i < tasks; i++) {
        long dueAtMs = firstDueAtMs + spread.toMillis() * i / tasks;
        chunk.add(
            SchedulableInstance.of(
                task.instance(String.format("%s-%07d", runId, i)), Instant.ofEpochMilli(dueAtMs)));
        if (chunk.size() == SCHEDULE_CHUNK || i == tasks - 1) {
          scheduler.scheduleBatch(chunk);
          chunk = new ArrayList<>(SCHEDULE_CHUNK);
        }
      }
      long lastDueAtMs = firstDueAtMs + spread.toMillis() * (tasks - 1) / tasks;
      recorder.awaitAll(Duration.ofMillis(lastDueAtMs + patience.toMillis() - clock.millis()));
      return recorder.outcome(runId, tasks, firstDueAtMs, (cpuNanos() - cpuStartNanos) / 1_000_000);
    } finally {
      scheduler.stop();
    }
  }

  /** CPU time of this JVM, or 0 where the platform does not report it. */
  private static long cpuNanos() {
    return ManagementFactory.getOperatingSystemMXBean()
            instanceof com.sun.management.OperatingSystemMXBean os
        ? Math.max(0, os.getProcessCpuTime())
        : 0;
  }
}
