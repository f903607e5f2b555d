package dev.ax.ingest;

import dev.ax.common.contract.CommandReadResult;
import dev.ax.common.contract.CommandType;
import dev.ax.common.contract.Echo;
import dev.ax.common.contract.TaskCommand;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.Namespace;
import dev.ax.common.model.Trigger;
import dev.ax.common.model.TriggerGroups;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.schedule.Jitter;
import dev.ax.common.store.CreateOutcome;
import dev.ax.common.store.CreateResult;
import dev.ax.common.store.NewTask;
import dev.ax.ingest.CreatePlan.Announcement;
import dev.ax.ingest.CreatePlan.FollowUp;
import dev.ax.ingest.CreatePlan.Settled;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Decides what a segment of CREATE and TRIGGER commands comes to, from what was read and what the
 * database answered: no I/O, so every rule is tested without a database or a broker ({@link
 * IngestLoop} asks the {@link IngestPort} between the steps and applies the plan).
 *
 * <ol>
 *   <li>{@link #screen}: each record in batch order becomes a refusal (unreadable, wrong key, a
 *       type this version does not take), a TRIGGER, or a CREATE; a DEPENDENCY CREATE is then
 *       checked against the database by the loop.
 *   <li>{@link #plan}: the accepted CREATEs become the tasks to insert, less those over the group
 *       limit and those whose trigger never fires.
 *   <li>{@link #followUp}: from the insert's outcomes, what to log, announce and publish.
 * </ol>
 *
 * <p>Holds nothing but its {@link FireTimes}; safe for one thread at a time (the consumer's).
 */
final class CreatePlanner {

  static final String NEVER_FIRES = "trigger never fires: no fire time after now";

  /** One record of a segment, as the reader made it out. */
  record ReadCommand(ConsumerRecord<String, byte[]> record, CommandReadResult read) {}

  /** What {@link #screen} made of one record. */
  sealed interface Screened {

    /** Refused before the database is asked. */
    record Refused(Refusal refusal) implements Screened {}

    /** A TRIGGER from the dependency resolver: creates an instance of a stored task. */
    record Triggering(CommandRow row) implements Screened {}

    /** A CREATE; {@code dependency} when it waits for upstreams (checked against the graph). */
    record Creating(CommandRow row, boolean dependency) implements Screened {}
  }

  private final FireTimes fireTimes;

  CreatePlanner(FireTimes fireTimes) {
    this.fireTimes = fireTimes;
  }

  /** Sorts a segment's records, in batch order (the refusals keep that order when sent). */
  List<Screened> screen(List<ReadCommand> reads) {
    List<Screened> screened = new ArrayList<>(reads.size());
    for (ReadCommand read : reads) {
      ConsumerRecord<String, byte[]> record = read.record();
      if (read.read() instanceof CommandReadResult.Rejected rejection) {
        screened.add(refused(record, RejectionClass.INVALID, rejection.reason()));
        continue;
      }
      TaskCommand command = ((CommandReadResult.Accepted) read.read()).command();
      String keyMismatch = keyMismatch(record.key(), command);
      if (keyMismatch != null) {
        screened.add(refused(record, RejectionClass.KEY, keyMismatch));
      } else if (command.type() == CommandType.TRIGGER) {
        screened.add(new Screened.Triggering(new CommandRow(record, command)));
      } else if (unsupported(command) != null) {
        screened.add(refused(record, RejectionClass.UNSUPPORTED, unsupported(command)));
      } else {
        screened.add(
            new Screened.Creating(
                new CommandRow(record, command),
                command.spec().trigger() instanceof Trigger.Dependency));
      }
    }
    return screened;
  }

  private static Screened refused(
      ConsumerRecord<String, byte[]> record, RejectionClass reasonClass, String reason) {
    return new Screened.Refused(new Refusal(record, reasonClass, reason));
  }

  /**
   * The tasks to insert for the accepted CREATEs.
   *
   * @param accepted the CREATEs that passed {@link #screen} and the dependency check, batch order
   * @param overLimit the reason, by index into {@code accepted}, of each over its group's limit
   * @param nowMs the acceptance time: after parsing, so a delay counts from when the task is being
   *     stored
   */
  CreatePlan plan(List<CommandRow> accepted, Map<Integer, String> overLimit, long nowMs) {
    List<NewTask> inserts = new ArrayList<>(accepted.size());
    List<Refusal> refusals = new ArrayList<>();
    Set<String> timeoutDefaulted = new HashSet<>();
    for (int i = 0; i < accepted.size(); i++) {
      CommandRow row = accepted.get(i);
      TaskCommand command = row.command();
      if (command.timeoutDefaulted()) {
        timeoutDefaulted.add(command.taskId());
      }
      if (overLimit.containsKey(i)) {
        refusals.add(new Refusal(row.record(), RejectionClass.LIMIT, overLimit.get(i)));
        continue;
      }
      if (command.spec().trigger() instanceof Trigger.Dependency) {
        // Runs when its upstreams succeed; no first instance.
        inserts.add(new NewTask(command.spec(), command.traceId(), nowMs));
        continue;
      }
      Long firstDueAtMs = firstDueAtMs(command, nowMs);
      if (firstDueAtMs == null) {
        refusals.add(new Refusal(row.record(), RejectionClass.UNSUPPORTED, NEVER_FIRES));
        continue;
      }
      inserts.add(new NewTask(command.spec(), command.traceId(), firstDueAtMs));
    }
    return new CreatePlan(nowMs, inserts, refusals, timeoutDefaulted);
  }

  /**
   * What follows the insert of {@code plan}: its outcomes are in the order of {@link
   * CreatePlan#inserts()}.
   *
   * @param announceHorizonMs first instances due within this of the acceptance time are announced
   */
  FollowUp followUp(CreatePlan plan, CreateResult result, long announceHorizonMs) {
    List<CreateOutcome> outcomes = result.outcomes();
    List<Settled> settled = new ArrayList<>(outcomes.size());
    List<Announcement> announcements = new ArrayList<>();
    List<NewTask> graphTasks = new ArrayList<>();
    for (int i = 0; i < outcomes.size(); i++) {
      NewTask task = plan.inserts().get(i);
      String taskId = task.spec().taskId();
      settled.add(new Settled(task, outcomes.get(i), plan.timeoutDefaulted().contains(taskId)));
      if (!task.hasFirstInstance()) {
        graphTasks.add(task); // a duplicate too: see FollowUp#graphTasks
        continue;
      }
      if (outcomes.get(i) == CreateOutcome.DUPLICATE
          || task.firstDueAtMs() - plan.nowMs() > announceHorizonMs) {
        continue;
      }
      String instanceId = InstanceIds.of(taskId, task.firstDueAtMs());
      announcements.add(
          new Announcement(
              taskId,
              instanceId,
              Jitter.dueAtMs(task.spec(), task.firstDueAtMs()),
              task.traceId(),
              result.seqByInstanceId().get(instanceId),
              TriggerGroups.keyOf(task.spec().trigger())));
    }
    return new FollowUp(settled, announcements, graphTasks);
  }

  /**
   * The reason a record's key does not fit its command, or null when it does: the key, when
   * present, must be the taskId (the group, for a group's PAUSE or RESUME), or two producers'
   * commands for one task could land on different partitions and be read out of order. A record
   * without a key is accepted.
   */
  static String keyMismatch(String key, TaskCommand command) {
    // The command is qualified with its namespace, the key as the producer wrote it.
    Namespace namespace = Namespace.of(command.key());
    if (key == null || namespace.qualify(key).equals(command.key())) {
      return null;
    }
    return "record key "
        + Echo.of(key)
        + " does not match "
        + (command.isGroup() ? "group " : "taskId ")
        + Echo.of(Namespace.localId(command.key()));
  }

  /** The reason this version cannot take the command yet, or null when it can. */
  private static String unsupported(TaskCommand command) {
    if (command.type() != CommandType.CREATE) {
      return "command type "
          + command.type()
          + " is not supported yet (this version accepts CREATE, UPDATE, CANCEL, DELETE, PAUSE,"
          + " RESUME and RUN_NOW, and TRIGGER from the dependency resolver)";
    }
    return null;
  }

  /** The first firing: for a periodic trigger its first slot after now, at most a far-off bound. */
  private Long firstDueAtMs(TaskCommand command, long nowMs) {
    return fireTimes
        .first(command.spec().trigger(), Instant.ofEpochMilli(nowMs))
        .map(Instant::toEpochMilli)
        .orElse(null);
  }
}
