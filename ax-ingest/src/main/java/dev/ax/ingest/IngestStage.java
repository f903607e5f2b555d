package dev.ax.ingest;

import dev.ax.common.contract.CommandReadResult;
import dev.ax.common.contract.CommandReader;
import dev.ax.common.contract.CommandType;
import dev.ax.common.contract.Echo;
import dev.ax.common.contract.TaskCommand;
import dev.ax.common.kafka.AnnouncementRecords;
import dev.ax.common.kafka.ConsumerLoop;
import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.kafka.RejectedRecords;
import dev.ax.common.logging.LogBudget;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.Trigger;
import dev.ax.common.model.TriggerGroups;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.stage.StageContext;
import dev.ax.common.stage.Switches;
import dev.ax.common.store.CreateOutcome;
import dev.ax.common.store.CreateResult;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.TaskStore;
import dev.ax.common.trace.TraceLog;
import dev.ax.common.trace.Traceparent;
import io.micrometer.core.instrument.Counter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ingest: consumes {@code ax.task.commands}, validates each command, stores new tasks with their
 * first instance (one transaction per polled batch, idempotent on taskId), announces instances due
 * soon on {@code ax.task.scheduled}, and sends every message it cannot accept to {@code
 * ax.task.commands.rejected} with the reason in a header and the original key and bytes unchanged
 * (or, when that is too large for Kafka, a digest of them: {@link RejectedRecords}). A record whose
 * key is neither absent nor the taskId is rejected. Offsets are committed only after the database
 * and the rejected topic have what was read.
 *
 * <p>Threading: one consumer thread (see {@link ConsumerLoop}); the {@link GraphRepublisher}'s
 * thread publishes the dependency graph again every {@code AX_DEPENDENCY_REPUBLISH}; {@link
 * #close()} from any thread.
 */
public final class IngestStage implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(IngestStage.class);

  /**
   * Commands per batch (one transaction). Smaller batches commit sooner, which matters for tasks
   * with short delays: a delay counts from acceptance, and an instance is visible at commit.
   */
  private static final int MAX_POLL_RECORDS = 200;

  private final StageContext context;
  private final CommandReader reader;
  private final FireTimes fireTimes = new FireTimes();
  private final TaskStore tasks;
  private final KafkaProducer<String, byte[]> producer;
  private final RejectedRecords rejections;
  private final ConsumerLoop loop;
  private final Duration announceHorizon;
  private final Counter received;
  private final Map<RejectionClass, Counter> rejected;
  private final Counter created;
  private final Counter duplicates;
  private final Counter triggerDuplicates;
  private final DependencyIntake dependencies;
  private final LifecycleIntake lifecycle;

  /** Rejections logged: a flood of bad commands must not flood the log (they are all counted). */
  private final LogBudget rejectionLogs;

  private final Switches switches;
  private final ActiveTaskLimit activeTaskLimit;
  private final GraphRepublisher graphRepublisher;

  public IngestStage(StageContext context, IngestConfig config) {
    this.producer = context.producer("ingest");
    this.context = context;
    this.reader =
        new CommandReader(config.defaultTimeout(), config.intakeLimits(), context.clock());
    this.tasks = new TaskStore(context.dataSource());
    this.announceHorizon = config.announceHorizon();
    this.activeTaskLimit = new ActiveTaskLimit(tasks, config.maxActiveTasksPerGroup());
    this.rejections =
        new RejectedRecords(
            producer, context.topics().commandsRejected(), KafkaClients.MAX_REQUEST_SIZE_BYTES);
    this.received = context.meters().counter("ax.ingest.received");
    this.rejected = RejectionClass.counters(context.meters());
    this.rejectionLogs =
        LogBudget.standard(
            "rejected command(s)",
            "ax_ingest_rejected_total and on "
                + context.topics().commandsRejected()
                + " with its reason");
    this.created = context.meters().counter("ax.ingest.created.tasks");
    this.duplicates = context.meters().counter("ax.ingest.duplicates");
    this.triggerDuplicates = context.meters().counter("ax.ingest.trigger.duplicates");
    this.dependencies =
        new DependencyIntake(context.dataSource(), context.topics(), context.nodeId());
    this.graphRepublisher =
        new GraphRepublisher(context, dependencies, producer, config.dependencyRepublish());
    this.switches = context.switches("ingest", Set.of(Switches.INTAKE));
    this.lifecycle =
        new LifecycleIntake(new TaskLifecycleStore(context.dataSource()), producer, context);
    this.loop =
        context.groupLoop(
            "ingest",
            MAX_POLL_RECORDS,
            List.of(context.topics().commands()),
            new IntakeGate(this::handle, switches::intakeEnabled),
            context.commandParking(producer));
  }

  public IngestStage start() {
    graphRepublisher.start();
    switches.start(); // before the loop: a stage started with intake off reads nothing
    loop.start();
    log.info("Ingest started on {}", context.topics().commands());
    return this;
  }

  private void handle(ConsumerRecords<String, byte[]> records) throws Exception {
    List<Future<RecordMetadata>> sends = new ArrayList<>();
    // Sent (and logged) only once the batch's writes succeeded: a batch that fails and is tried
    // again, whole or one record at a time, rejects each record once.
    List<Refusal> refusals = new ArrayList<>();
    // Commands apply in the order they were read (one task's commands share a partition): the
    // creates and triggers before a lifecycle command are stored before it applies.
    List<ConsumerRecord<String, byte[]>> segment = new ArrayList<>();
    List<CommandReadResult> segmentReads = new ArrayList<>();
    for (ConsumerRecord<String, byte[]> record : records) {
      received.increment();
      CommandReadResult read = reader.read(record.value(), traceparentOf(record));
      if (read instanceof CommandReadResult.Accepted accepted
          && accepted.command().isLifecycle()
          && keyMismatch(record.key(), accepted.command()) == null) {
        handleCreates(segment, segmentReads, refusals, sends);
        segment.clear();
        segmentReads.clear();
        lifecycle
            .apply(record, accepted.command(), sends)
            .ifPresent(reason -> refusals.add(new Refusal(record, RejectionClass.STATE, reason)));
        continue;
      }
      segment.add(record);
      segmentReads.add(read);
    }
    handleCreates(segment, segmentReads, refusals, sends);
    for (Refusal refusal : refusals) {
      sends.add(reject(refusal.record(), refusal.reasonClass(), refusal.reason()));
    }
    for (Future<RecordMetadata> send : sends) {
      send.get(); // the offsets move only when every reject and announcement is on the broker
    }
  }

  /**
   * Stores the CREATE commands among {@code records} (read as {@code reads}) in one transaction and
   * creates the instances their TRIGGER commands ask for; adds what it refuses to {@code refusals}
   * and its announcements to {@code sends}.
   */
  private void handleCreates(
      List<ConsumerRecord<String, byte[]>> records,
      List<CommandReadResult> reads,
      List<Refusal> refusals,
      List<Future<RecordMetadata>> sends) {
    if (records.isEmpty()) {
      return;
    }
    List<TaskCommand> accepted = new ArrayList<>();
    List<ConsumerRecord<String, byte[]>> acceptedRecords = new ArrayList<>();
    Set<String> acceptedIds = new HashSet<>();
    List<TaskCommand> triggers = new ArrayList<>();
    Map<TaskCommand, ConsumerRecord<String, byte[]>> triggerRecords = new IdentityHashMap<>();
    for (int r = 0; r < records.size(); r++) {
      ConsumerRecord<String, byte[]> record = records.get(r);
      CommandReadResult read = reads.get(r);
      if (read instanceof CommandReadResult.Rejected rejection) {
        refusals.add(new Refusal(record, RejectionClass.INVALID, rejection.reason()));
        continue;
      }
      TaskCommand command = ((CommandReadResult.Accepted) read).command();
      String keyMismatch = keyMismatch(record.key(), command);
      if (keyMismatch != null) {
        refusals.add(new Refusal(record, RejectionClass.KEY, keyMismatch));
        continue;
      }
      if (command.type() == CommandType.TRIGGER) {
        triggers.add(command);
        triggerRecords.put(command, record);
        continue;
      }
      String unsupported = unsupported(command);
      if (unsupported == null && command.spec().trigger() instanceof Trigger.Dependency) {
        unsupported = dependencies.rejectionOf(command, acceptedIds);
      }
      if (unsupported != null) {
        refusals.add(new Refusal(record, RejectionClass.UNSUPPORTED, unsupported));
        continue;
      }
      accepted.add(command);
      acceptedRecords.add(record);
      acceptedIds.add(command.taskId());
    }

    // Acceptance time: after parsing, so a delay counts from when the task is being stored.
    long nowMs = context.clock().millis();
    Map<Integer, String> overLimit = activeTaskLimit.rejections(accepted);
    List<NewTask> newTasks = new ArrayList<>(accepted.size());
    Set<String> timeoutDefaulted = new HashSet<>();
    for (int i = 0; i < accepted.size(); i++) {
      TaskCommand command = accepted.get(i);
      if (command.timeoutDefaulted()) {
        timeoutDefaulted.add(command.taskId());
      }
      if (overLimit.containsKey(i)) {
        refusals.add(new Refusal(acceptedRecords.get(i), RejectionClass.LIMIT, overLimit.get(i)));
        continue;
      }
      if (command.spec().trigger() instanceof Trigger.Dependency) {
        // Runs when its upstreams succeed; no first instance.
        newTasks.add(new NewTask(command.spec(), command.traceId(), nowMs));
        continue;
      }
      Long firstDueAtMs = firstDueAtMs(command, nowMs);
      if (firstDueAtMs == null) {
        refusals.add(
            new Refusal(
                acceptedRecords.get(i),
                RejectionClass.UNSUPPORTED,
                "trigger never fires: no fire time after now"));
        continue;
      }
      newTasks.add(new NewTask(command.spec(), command.traceId(), firstDueAtMs));
    }
    CreateResult result = tasks.create(newTasks, context.nodeId(), nowMs);
    List<CreateOutcome> outcomes = result.outcomes();
    List<NewTask> createdDependencyTasks = new ArrayList<>();
    for (int i = 0; i < outcomes.size(); i++) {
      NewTask task = newTasks.get(i);
      String taskId = task.spec().taskId();
      if (outcomes.get(i) == CreateOutcome.DUPLICATE) {
        if (!task.hasFirstInstance()) {
          // Published again from the database: a redelivered batch whose first pass stored the
          // task but crashed before publishing must still reach the resolver's graph.
          createdDependencyTasks.add(task);
        }
        duplicates.increment();
        try (TraceLog fields = TraceLog.ofTask(task.traceId(), taskId)) {
          log.info("Task {} exists already; duplicate create ignored", taskId);
        }
        continue;
      }
      created.increment();
      try (TraceLog fields = TraceLog.ofTask(task.traceId(), taskId)) {
        if (timeoutDefaulted.contains(taskId)) {
          log.warn(
              "Task {} sets no timeoutMs; it gets the default {} ms",
              taskId,
              task.spec().timeout().toMillis());
        }
        if (task.hasFirstInstance()) {
          log.debug("Task {} created, due at {}", taskId, task.firstDueAtMs());
        } else {
          log.debug("Dependency task {} created", taskId);
        }
      }
      if (!task.hasFirstInstance()) {
        createdDependencyTasks.add(task);
        continue;
      }
      if (task.firstDueAtMs() - nowMs <= announceHorizon.toMillis()) {
        String instanceId = InstanceIds.of(taskId, task.firstDueAtMs());
        sends.add(
            producer.send(
                AnnouncementRecords.of(
                    context.topics().scheduled(),
                    taskId,
                    instanceId,
                    task.firstDueAtMs(),
                    task.traceId(),
                    result.seqByInstanceId().get(instanceId),
                    TriggerGroups.keyOf(task.spec().trigger()))));
      }
    }
    for (ProducerRecord<String, byte[]> entry : dependencies.graphEntries(createdDependencyTasks)) {
      sends.add(producer.send(entry));
    }
    if (!triggers.isEmpty()) {
      DependencyIntake.Triggered triggered = dependencies.trigger(triggers, nowMs);
      triggered
          .rejections()
          .forEach(
              (command, reason) ->
                  refusals.add(
                      new Refusal(triggerRecords.get(command), RejectionClass.STATE, reason)));
      triggered.announcements().forEach(a -> sends.add(producer.send(a)));
      triggerDuplicates.increment(triggered.duplicates());
    }
  }

  /** The record's {@code traceparent} header as text, or null when it has none. */
  private static String traceparentOf(ConsumerRecord<String, byte[]> record) {
    Header header = record.headers().lastHeader(Traceparent.HEADER);
    return header == null || header.value() == null
        ? null
        : new String(header.value(), StandardCharsets.UTF_8);
  }

  /** A command this batch will reject, and why. */
  private record Refusal(
      ConsumerRecord<String, byte[]> record, RejectionClass reasonClass, String reason) {}

  /**
   * The reason a record's key does not fit its command, or null when it does: the key, when
   * present, must be the taskId (the group, for a group's PAUSE or RESUME), or two producers'
   * commands for one task could land on different partitions and be read out of order. A record
   * without a key is accepted.
   */
  static String keyMismatch(String key, TaskCommand command) {
    if (key == null || key.equals(command.key())) {
      return null;
    }
    return "record key "
        + Echo.of(key)
        + " does not match "
        + (command.isGroup() ? "group " : "taskId ")
        + Echo.of(command.key());
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

  private Future<RecordMetadata> reject(
      ConsumerRecord<String, byte[]> record, RejectionClass reasonClass, String reason) {
    rejected.get(reasonClass).increment();
    LogBudget.Permit permit = rejectionLogs.take();
    if (permit.allowed()) {
      rejectionLogs.heldBack(permit).ifPresent(log::warn);
      log.warn(
          "Rejected command at {}-{}@{} (key {}): {}",
          record.topic(),
          record.partition(),
          record.offset(),
          record.key() == null ? null : Echo.of(record.key()),
          reason);
    }
    return rejections.send(record, reason);
  }

  @Override
  public void close() {
    graphRepublisher.close();
    loop.close();
    switches.close();
    producer.close(Duration.ofSeconds(5));
    log.info("Ingest stopped");
  }
}
