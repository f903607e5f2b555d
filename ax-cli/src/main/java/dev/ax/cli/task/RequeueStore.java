package dev.ax.cli.task;

import static dev.ax.common.model.InstanceStatus.DISPATCHED;
import static dev.ax.common.model.InstanceStatus.SCHEDULED;
import static dev.ax.common.store.Jdbc.Binder.values;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.BatchMove;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.Jdbc;
import java.util.List;
import javax.sql.DataSource;

/**
 * The CLI's SQL for {@code ax requeue}: a page of a group's backlog in one status and due range, by
 * the instances' numeric key, and the move of a DISPATCHED page back to SCHEDULED with its audit
 * rows (a SCHEDULED page is only read: it is announced again as it is). Thread-safe (stateless over
 * a pool).
 */
public final class RequeueStore {

  /** Which backlog: one group, one status, due in {@code [fromMs, toMs)}. */
  public record Backlog(String group, InstanceStatus status, long fromMs, long toMs) {}

  private final Jdbc jdbc;

  public RequeueStore(DataSource dataSource) {
    this.jdbc = new Jdbc(dataSource);
  }

  /** Up to {@code limit} of the backlog's instances after {@code afterSeq}, by key. */
  public List<DueInstance> page(Backlog backlog, long afterSeq, int limit) {
    return jdbc.query(
        "reading a page of group " + backlog.group() + "'s " + backlog.status() + " instances",
        "SELECT "
            + DueInstance.COLUMNS.replaceAll("(\\w+)", "i.$1")
            + " FROM ax_instance i JOIN ax_task t ON t.task_id = i.task_id"
            + " WHERE i.status = ? AND t.task_group = ? AND i.due_at_ms >= ? AND i.due_at_ms < ?"
            + " AND i.seq > ? ORDER BY i.seq LIMIT ?",
        values(
            backlog.status().name(),
            backlog.group(),
            backlog.fromMs(),
            backlog.toMs(),
            afterSeq,
            limit),
        DueInstance::read);
  }

  /** DISPATCHED → SCHEDULED for {@code page}, audited; the rows that moved, read back. */
  public List<DueInstance> requeue(
      List<DueInstance> page, String actor, String reason, long nowMs) {
    return jdbc.move(
        "seq",
        page.stream().map(DueInstance::seq).toList(),
        BatchMove.from(DISPATCHED)
            .<DueInstance>to(SCHEDULED)
            .set("owner = NULL, dispatched_at_ms = NULL")
            .readBack(DueInstance.COLUMNS, DueInstance::read)
            .audit(actor, reason),
        nowMs);
  }
}
