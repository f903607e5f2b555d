package dev.ax.ingest;

import dev.ax.common.contract.CommandReadResult;
import dev.ax.common.contract.CommandReader;
import dev.ax.common.contract.Echo;
import dev.ax.common.contract.TaskCommand;
import dev.ax.common.logging.LogBudget;
import dev.ax.common.model.Namespace;
import dev.ax.common.store.CreateOutcome;
import dev.ax.common.time.Clock;
import dev.ax.common.trace.TraceLog;
import dev.ax.common.trace.Traceparent;
import dev.ax.ingest.CreatePlan.Announcement;
import dev.ax.ingest.CreatePlan.FollowUp;
import dev.ax.ingest.CreatePlan.Settled;
import dev.ax.ingest.CreatePlanner.ReadCommand;
import dev.ax.ingest.CreatePlanner.Screened;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ingest's batch handler: reads each record of a polled batch, plans with the {@link
 * CreatePlanner}, and applies the plan through the {@link IngestPort}.
 *
 * <p>Commands apply in the order they were read (one task's commands share a partition): the
 * records before a lifecycle command (a segment) are stored in one transaction before it applies.
 * Refusals are sent (and logged) only once the batch's writes succeeded, so a batch that fails and
 * is tried again, whole or one record at a time, rejects each record once; {@link #handle} returns
 * only when every reject and announcement is on the broker, so the offsets move after them.
 *
 * <p>Threading: owned by the consumer thread; not thread-safe.
 */
final class IngestLoop {

  private static final Logger log = LoggerFactory.getLogger(IngestLoop.class);

  private final Clock clock;
  private final CommandReader reader;
  private final NamespaceIntake namespaces;
  private final CreatePlanner planner;
  private final IngestPort port;
  private final long announceHorizonMs;
  private final IngestCounters counts;

  /** Rejections logged: a flood of bad commands must not flood the log (they are all counted). */
  private final LogBudget rejectionLogs;

  /**
   * @param announceHorizon first instances due within this of their acceptance are announced
   * @param rejectedTopic where refusals go, named in the log
   */
  IngestLoop(
      Clock clock,
      CommandReader reader,
      NamespaceIntake namespaces,
      CreatePlanner planner,
      IngestPort port,
      Duration announceHorizon,
      IngestCounters counts,
      String rejectedTopic) {
    this.clock = clock;
    this.reader = reader;
    this.namespaces = namespaces;
    this.planner = planner;
    this.port = port;
    this.announceHorizonMs = announceHorizon.toMillis();
    this.counts = counts;
    this.rejectionLogs =
        LogBudget.standard(
            "rejected command(s)",
            "ax_ingest_rejected_total and on "
                + rejectedTopic
                + " (or its namespace's) with its reason");
  }

  /** Applies one polled batch; returns when the broker has every send it caused. */
  void handle(Iterable<ConsumerRecord<String, byte[]>> records) throws Exception {
    List<Future<RecordMetadata>> sends = new ArrayList<>();
    List<Refusal> refusals = new ArrayList<>();
    List<ReadCommand> segment = new ArrayList<>();
    for (ConsumerRecord<String, byte[]> record : records) {
      counts.received(namespaces.tagOf(record));
      CommandReadResult read =
          namespaces.admit(record, reader.read(record.value(), traceparentOf(record)));
      if (read instanceof CommandReadResult.Accepted accepted
          && accepted.command().isLifecycle()
          && CreatePlanner.keyMismatch(record.key(), accepted.command()) == null) {
        handleCreates(segment, refusals, sends);
        segment.clear();
        port.applyLifecycle(record, accepted.command(), sends)
            .ifPresent(reason -> refusals.add(new Refusal(record, RejectionClass.STATE, reason)));
        continue;
      }
      segment.add(new ReadCommand(record, read));
    }
    handleCreates(segment, refusals, sends);
    for (Refusal refusal : refusals) {
      sends.add(reject(refusal));
    }
    for (Future<RecordMetadata> send : sends) {
      send.get(); // the offsets move only when every reject and announcement is on the broker
    }
  }

  /**
   * Stores the CREATE commands of a segment in one transaction and creates the instances its
   * TRIGGER commands ask for; adds what it refuses to {@code refusals} and its sends to {@code
   * sends}.
   */
  private void handleCreates(
      List<ReadCommand> segment, List<Refusal> refusals, List<Future<RecordMetadata>> sends) {
    if (segment.isEmpty()) {
      return;
    }
    List<CommandRow> accepted = new ArrayList<>();
    List<CommandRow> triggers = new ArrayList<>();
    Set<String> acceptedIds = new HashSet<>();
    for (Screened screened : planner.screen(segment)) {
      if (screened instanceof Screened.Refused r) {
        refusals.add(r.refusal());
      } else if (screened instanceof Screened.Triggering t) {
        triggers.add(t.row());
      } else if (screened instanceof Screened.Creating c) {
        String rejection =
            c.dependency() ? port.dependencyRejection(c.row().command(), acceptedIds) : null;
        if (rejection != null) {
          refusals.add(new Refusal(c.row().record(), RejectionClass.UNSUPPORTED, rejection));
        } else {
          accepted.add(c.row());
          acceptedIds.add(c.row().command().taskId());
        }
      }
    }
    long nowMs = clock.millis();
    List<TaskCommand> commands = accepted.stream().map(CommandRow::command).toList();
    CreatePlan plan = planner.plan(accepted, port.overLimit(commands), nowMs);
    refusals.addAll(plan.refusals());
    FollowUp followUp =
        planner.followUp(plan, port.create(plan.inserts(), nowMs), announceHorizonMs);
    followUp.settled().forEach(this::logSettled);
    for (Announcement announcement : followUp.announcements()) {
      sends.add(port.announce(announcement));
    }
    sends.addAll(port.publishGraph(followUp.graphTasks()));
    if (!triggers.isEmpty()) {
      trigger(triggers, nowMs, refusals, sends);
    }
  }

  private void logSettled(Settled settled) {
    String taskId = settled.task().spec().taskId();
    try (TraceLog fields = TraceLog.ofTask(settled.task().traceId(), taskId)) {
      if (settled.outcome() == CreateOutcome.DUPLICATE) {
        counts.duplicate();
        log.info("Task {} exists already; duplicate create ignored", taskId);
        return;
      }
      counts.created(Namespace.of(taskId).name());
      if (settled.timeoutDefaulted()) {
        log.warn(
            "Task {} sets no timeoutMs; it gets the default {} ms",
            taskId,
            settled.task().spec().timeout().toMillis());
      }
      if (settled.task().hasFirstInstance()) {
        log.debug("Task {} created, due at {}", taskId, settled.task().firstDueAtMs());
      } else {
        log.debug("Dependency task {} created", taskId);
      }
    }
  }

  private void trigger(
      List<CommandRow> triggers,
      long nowMs,
      List<Refusal> refusals,
      List<Future<RecordMetadata>> sends) {
    Map<TaskCommand, ConsumerRecord<String, byte[]>> recordOf = new IdentityHashMap<>();
    triggers.forEach(row -> recordOf.put(row.command(), row.record()));
    IngestPort.Triggered triggered =
        port.trigger(triggers.stream().map(CommandRow::command).toList(), nowMs);
    triggered
        .rejections()
        .forEach(
            (command, reason) ->
                refusals.add(new Refusal(recordOf.get(command), RejectionClass.STATE, reason)));
    sends.addAll(triggered.announcements());
    counts.triggerDuplicates(triggered.duplicates());
  }

  /** The record's {@code traceparent} header as text, or null when it has none. */
  private static String traceparentOf(ConsumerRecord<String, byte[]> record) {
    Header header = record.headers().lastHeader(Traceparent.HEADER);
    return header == null || header.value() == null
        ? null
        : new String(header.value(), StandardCharsets.UTF_8);
  }

  private Future<RecordMetadata> reject(Refusal refusal) {
    ConsumerRecord<String, byte[]> record = refusal.record();
    counts.rejected(namespaces.tagOf(record), refusal.reasonClass());
    LogBudget.Permit permit = rejectionLogs.take();
    if (permit.allowed()) {
      rejectionLogs.heldBack(permit).ifPresent(log::warn);
      log.warn(
          "Rejected command at {}-{}@{} (key {}): {}",
          record.topic(),
          record.partition(),
          record.offset(),
          record.key() == null ? null : Echo.of(record.key()),
          refusal.reason());
    }
    return port.reject(record, refusal.reason());
  }
}
