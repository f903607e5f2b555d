package dev.ax.api.write;

import dev.ax.api.audit.OperatorLog;
import dev.ax.common.model.OverlapPolicy;
import dev.ax.common.schedule.BackfillRange;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.store.BackfillStore;
import dev.ax.common.store.BackfillStore.Backfill;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
import javax.sql.DataSource;

/**
 * The operators' backfills, the same from {@code ax task backfill} and the API ({@code POST
 * /api/v1/tasks/{taskId}/backfills}): a request is checked against its task read under its lock
 * ({@link BackfillRange#check}, {@link BackfillStore#request}) and stored RUNNING, or refused with
 * the reason; the ticker leader creates its firings at its pace. Unlike the lifecycle commands it
 * is written to the database directly, as {@code ax pool} and {@code ax dlq replay} are: an
 * operator gets the backfill's id and its number of firings, or the refusal, at once, and nothing
 * of it goes through ingest. Each request stored and each cancel that stopped one writes one
 * operator-log entry ({@code task backfill}, {@code task backfill-cancel}, the target the stored
 * task id).
 *
 * <p>Thread-safe: stateless over the store and the log.
 */
public final class BackfillRequests {

  /** The most backfills a task's listing shows. */
  public static final int LIST_LIMIT = 50;

  private final BackfillStore store;
  private final OperatorLog audit;
  private final LongSupplier clockMs;
  private final FireTimes fireTimes = new FireTimes();

  public BackfillRequests(DataSource dataSource, OperatorLog audit, LongSupplier clockMs) {
    this.store = new BackfillStore(dataSource);
    this.audit = audit;
    this.clockMs = clockMs;
  }

  /**
   * Requests a backfill of {@code taskId} (a stored id) over {@code [from, to]}.
   *
   * @param overlap the backfill's overlap policy, or null for the default ({@link
   *     BackfillRange#defaultOverlap})
   */
  public BackfillStore.Requested request(
      String taskId,
      Instant from,
      Instant to,
      OverlapPolicy overlap,
      String operator,
      String reason) {
    long nowMs = clockMs.getAsLong();
    Instant now = Instant.ofEpochMilli(nowMs);
    String id =
        "bf-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong()).substring(4);
    BackfillStore.Requested requested =
        store.request(
            id,
            taskId,
            operator,
            reason,
            nowMs,
            task ->
                BackfillRange.check(
                    taskId,
                    task.spec().trigger(),
                    task.spec().overlap(),
                    Instant.ofEpochMilli(task.gridOriginMs()),
                    from,
                    to,
                    overlap,
                    now,
                    fireTimes));
    if (requested instanceof BackfillStore.Requested.Accepted accepted) {
      Backfill b = accepted.backfill();
      audit.record(
          operator,
          "task backfill",
          taskId,
          (reason == null ? "by ax task backfill" : reason)
              + " [backfill "
              + b.backfillId()
              + " from "
              + Instant.ofEpochMilli(b.fromMs())
              + " to "
              + Instant.ofEpochMilli(b.toMs())
              + ", "
              + b.total()
              + " firing(s), overlap "
              + b.overlap()
              + "]",
          nowMs);
    }
    return requested;
  }

  /** The newest backfills of {@code taskId} (a stored id), newest first. */
  public List<Backfill> ofTask(String taskId) {
    return store.ofTask(taskId, LIST_LIMIT);
  }

  public Optional<Backfill> find(String backfillId) {
    return store.find(backfillId);
  }

  /**
   * Cancels a RUNNING backfill; its firings already created run as any instance of the task. The
   * backfill as it is afterwards (a DONE or CANCELLED one unchanged); empty when there is none.
   */
  public Optional<BackfillStore.Cancel> cancel(String backfillId, String operator, String reason) {
    long nowMs = clockMs.getAsLong();
    Optional<BackfillStore.Cancel> cancel = store.cancel(backfillId, operator, reason, nowMs);
    if (cancel.isPresent() && cancel.get().stopped()) {
      Backfill b = cancel.get().backfill();
      audit.record(
          operator,
          "task backfill-cancel",
          b.taskId(),
          (reason == null ? "by ax task backfill-cancel" : reason)
              + " [backfill "
              + backfillId
              + ", "
              + b.created()
              + " of "
              + b.total()
              + " firing(s) created]",
          nowMs);
    }
    return cancel;
  }
}
