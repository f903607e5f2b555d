package dev.ax.ingest;

import dev.ax.common.store.CreateOutcome;
import dev.ax.common.store.NewTask;
import java.util.List;
import java.util.Set;

/**
 * What one segment's CREATE commands come to before the insert: the tasks to insert (in batch
 * order) and the commands refused for the group limit or a trigger that never fires.
 *
 * @param nowMs the acceptance time: delays count from it, and it is the insert's time
 * @param inserts the tasks to insert, a DEPENDENCY task without a first instance
 * @param refusals the commands refused at this step, in batch order
 * @param timeoutDefaulted ids of tasks whose command set no timeoutMs (their create is logged)
 */
record CreatePlan(
    long nowMs, List<NewTask> inserts, List<Refusal> refusals, Set<String> timeoutDefaulted) {

  /**
   * One inserted task as the database took it.
   *
   * @param outcome created now, or a duplicate of a stored task (the command is ignored)
   * @param timeoutDefaulted its command set no timeoutMs and it got the default
   */
  record Settled(NewTask task, CreateOutcome outcome, boolean timeoutDefaulted) {}

  /**
   * The first instance of a created task due within the announce horizon: announced to the ticker
   * on {@code ax.task.scheduled}.
   *
   * @param seq the instance's row key, as the insert returned it
   */
  record Announcement(
      String taskId,
      String instanceId,
      long dueAtMs,
      String traceId,
      Long seq,
      String triggerGroup) {}

  /**
   * What follows the insert, in batch order.
   *
   * @param settled every insert with its outcome
   * @param announcements the created first instances due within the horizon
   * @param graphTasks DEPENDENCY tasks whose graph entries are published: those created now and the
   *     duplicates (a redelivered batch whose first pass stored the task but crashed before
   *     publishing must still reach the resolver's graph)
   */
  record FollowUp(
      List<Settled> settled, List<Announcement> announcements, List<NewTask> graphTasks) {}
}
