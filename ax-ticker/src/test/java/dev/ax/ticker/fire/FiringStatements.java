package dev.ax.ticker.fire;

import static dev.ax.common.testing.SeededHistory.NOW_MS;

import dev.ax.common.store.Sql;
import dev.ax.common.testing.PlannedStatement;
import dev.ax.common.testing.SeededHistory;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;

/**
 * The window load's, firing's and FIXED_DELAY chaining's statements as {@link FiringStore} runs
 * them, for the EXPLAIN test.
 */
public final class FiringStatements {

  private FiringStatements() {}

  public static List<PlannedStatement> all() {
    List<Object> seqs = new ArrayList<>();
    LongStream.rangeClosed(1, 500).map(i -> i * 37).forEach(seqs::add);
    List<Object> bySeq = new ArrayList<>(seqs);
    bySeq.add("SCHEDULED");
    List<String> taskIds = new ArrayList<>();
    for (int n = 0; n < 500; n++) {
      taskIds.add(SeededHistory.taskId(n * 5));
    }
    List<Object> inFlight = new ArrayList<>(taskIds);
    inFlight.addAll(List.of("DISPATCHED", "RUNNING", "RETRYING"));
    List<Object> overlap = new ArrayList<>(taskIds);
    overlap.addAll(List.of("DISPATCHED", "RUNNING", "RETRYING", "SCHEDULED"));
    List<Object> pending = new ArrayList<>(taskIds);
    pending.addAll(List.of("SCHEDULED", "PAUSED"));
    return List.of(
        PlannedStatement.of(
            "window load: a full load's first page",
            FiringStore.WINDOW_PAGE,
            "SCHEDULED",
            NOW_MS + 60_000,
            Long.MIN_VALUE,
            Long.MIN_VALUE,
            Long.MIN_VALUE,
            5_000),
        PlannedStatement.of(
            "window load: a page past the watermark",
            FiringStore.WINDOW_PAGE,
            "SCHEDULED",
            NOW_MS + 60_000,
            NOW_MS + 30_000,
            NOW_MS + 30_000,
            1_000L,
            5_000),
        PlannedStatement.of(
            "firing: the batch's rows still SCHEDULED",
            FiringStore.scheduledBySeqSql(Sql.placeholders(seqs.size())),
            bySeq),
        PlannedStatement.of(
                "firing: tasks with a run in flight",
                FiringStore.tasksInFlightSql(Sql.placeholders(taskIds.size())),
                inFlight)
            .readingBy("ax_instance_task_status"),
        PlannedStatement.of(
                "firing: what tasks with an overlap policy have live",
                TaskOverlapRead.sql(Sql.placeholders(taskIds.size())),
                overlap)
            .readingBy("ax_instance_task_status"),
        PlannedStatement.of(
                "FIXED_DELAY chaining: tasks with a pending firing",
                FiringStore.pendingOfTasksSql(Sql.placeholders(taskIds.size())),
                pending)
            .readingBy("ax_instance_task_status"));
  }
}
