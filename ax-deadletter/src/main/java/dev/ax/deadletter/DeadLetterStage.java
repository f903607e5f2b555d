package dev.ax.deadletter;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskDeadEvent;
import dev.ax.common.contract.TaskSpecJson;
import dev.ax.common.kafka.ConsumerLoop;
import dev.ax.common.kafka.EventDecoder;
import dev.ax.common.logging.LogBudget;
import dev.ax.common.model.DeadLetterState;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.stage.StageContext;
import dev.ax.common.store.AuditLog;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.StoredTask;
import dev.ax.common.store.TaskStore;
import dev.ax.common.thread.DaemonThreads;
import dev.ax.common.trace.TraceLog;
import io.micrometer.core.instrument.Counter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dead-letter stage: consumes {@code ax.task.deadletter} and stores one dead letter per DEAD
 * instance (idempotent on the instance id), holding the task as it is stored, every attempt from
 * the audit log and the last stack trace; then counts it ({@code ax.deadletter.stored}) and alerts
 * through the webhook. With {@code AX_ALERT_RELAY_BIND} set it also serves the {@link AlertRelay},
 * which posts Alertmanager's alerts (the shipped rules') to the chat robots in the same formats. A
 * sweep every {@link #SWEEP_EVERY} stores letters for DEAD instances whose event was lost (without
 * a stack: only the event carries it). Log lines carry no stack.
 *
 * <p>Threading: one consumer thread; one sweep thread; one webhook thread; with the relay, its
 * server's threads and one outbound thread of its own. The store is idempotent, so the two writers
 * may race on one instance.
 */
public final class DeadLetterStage implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(DeadLetterStage.class);

  private final LogBudget storedLogs =
      LogBudget.standard("dead letter(s)", "ax_deadletter_stored_total and listed by ax dlq list");
  static final Duration SWEEP_EVERY = Duration.ofSeconds(30);

  /** Dead-letter events per poll: each is a few reads and one insert, and they are rare. */
  private static final int MAX_POLL_RECORDS = 200;

  private final StageContext context;
  private final DeadLetterStore letters;
  private final TaskStore tasks;
  private final InstanceStore instances;
  private final AuditLog audit;
  private final WebhookAlerter alerter;
  private final Optional<AlertRelay> relay;
  private final boolean webhookOn;
  private final ConsumerLoop loop;

  /** Sends only what the loop parks: the stage writes the database, not Kafka. */
  private final KafkaProducer<String, byte[]> parkingProducer;

  private final Counter stored;
  private final EventDecoder<TaskDeadEvent> deadEvents;
  private final ScheduledExecutorService sweeper = DaemonThreads.scheduler("ax-deadletter-sweep");

  public DeadLetterStage(StageContext context, DeadLetterConfig config) {
    this.context = context;
    // Registered whether the relay runs or not, so every scrape of the stage shows them.
    AlertRelay.Meters.of(context.meters());
    // First: a port that cannot be bound stops the stage before it holds any client.
    this.relay = config.relay().bind().map(bind -> relay(config.relay(), context));
    this.webhookOn = config.webhook().isPresent();
    this.deadEvents =
        EventDecoder.of(TaskDeadEvent.class, "dead-letter event", "deadletter", context.meters());
    this.letters = new DeadLetterStore(context.dataSource());
    this.tasks = new TaskStore(context.dataSource());
    this.instances = new InstanceStore(context.dataSource());
    this.audit = new AuditLog(context.dataSource());
    this.alerter =
        new WebhookAlerter(
            config.webhook().orElse(null),
            config.webhookFormat(),
            config.webhookPerMinute(),
            context.meters());
    this.stored = context.meters().counter("ax.deadletter.stored");
    this.parkingProducer = context.producer("deadletter-parking");
    this.loop =
        context.groupLoop(
            "deadletter",
            MAX_POLL_RECORDS,
            List.of(context.topics().deadletter()),
            this::handle,
            context.parking(parkingProducer, "deadletter"));
  }

  private static AlertRelay relay(AlertRelayConfig config, StageContext context) {
    try {
      return new AlertRelay(config, context.meters());
    } catch (IOException e) {
      throw new UncheckedIOException(
          "The alert relay cannot listen on " + config.bind().orElseThrow() + ": " + e, e);
    }
  }

  public DeadLetterStage start() {
    loop.start();
    sweeper.scheduleWithFixedDelay(
        this::sweepQuietly, SWEEP_EVERY.toMillis(), SWEEP_EVERY.toMillis(), TimeUnit.MILLISECONDS);
    log.info(
        "Dead-letter stage {} started on {}; webhook {}; alert relay {}",
        context.nodeId(),
        context.topics().deadletter(),
        webhookOn ? "on" : "off",
        relay.map(r -> "on " + r.address()).orElse("off"));
    return this;
  }

  private void handle(ConsumerRecords<String, byte[]> records) {
    deadEvents.forEachEvent(
        records,
        (record, event) ->
            store(
                event.instanceId(),
                event.taskId(),
                event.group(),
                event.error(),
                event.stackTrace(),
                event.reason(),
                event.traceId()));
  }

  /**
   * One ERROR line per dead letter, without the stack (stored in the letter: {@code ax dlq show}),
   * within a budget, since a flood of failing tasks is input and must not flood the log.
   */
  private void logStored(
      String instanceId, String taskId, String traceId, int attempts, String error, String reason) {
    LogBudget.Permit permit = storedLogs.take();
    if (!permit.allowed()) {
      return;
    }
    storedLogs.heldBack(permit).ifPresent(log::error);
    try (TraceLog fields = TraceLog.ofInstance(traceId, taskId, instanceId)) {
      log.error(
          "Dead letter stored for {} after {} attempt(s): {}; {}",
          instanceId,
          attempts,
          error,
          reason);
    }
  }

  private void store(
      String instanceId,
      String taskId,
      String group,
      String error,
      String stack,
      String reason,
      String traceId) {
    Optional<StoredTask> task = Optional.ofNullable(tasks.findAll(List.of(taskId)).get(taskId));
    String snapshot =
        task.map(t -> TaskSpecJson.write(t.spec()).toString()).orElse("{\"missing\":true}");
    String letterGroup =
        group != null ? group : task.map(t -> t.spec().group()).orElse(TaskSpec.DEFAULT_GROUP);
    List<AttemptHistory.Attempt> attempts = AttemptHistory.of(audit.history(instanceId));
    long nowMs = context.clock().millis();
    boolean isNew =
        letters.store(
            new DeadLetterStore.DeadLetter(
                0,
                instanceId,
                taskId,
                letterGroup,
                snapshot,
                AxJson.writeString(attempts),
                error,
                stack,
                DeadLetterState.OPEN,
                reason,
                nowMs,
                nowMs));
    if (!isNew) {
      return;
    }
    stored.increment();
    logStored(instanceId, taskId, traceId, attempts.size(), error, reason);
    Map<String, Object> alert = new LinkedHashMap<>();
    alert.put("event", "ax.deadletter");
    alert.put("instanceId", instanceId);
    alert.put("taskId", taskId);
    alert.put("group", letterGroup);
    alert.put("attempts", attempts.size());
    alert.put("error", error);
    alert.put("reason", reason);
    alert.put("traceId", traceId);
    alert.put("atMs", nowMs);
    alerter.alert(alert, nowMs);
  }

  /** Letters for DEAD instances whose dead-letter event never arrived. */
  private void sweepQuietly() {
    try {
      for (String instanceId : letters.deadWithoutLetter(100)) {
        Optional<InstanceRow> row = instances.find(instanceId);
        if (row.isEmpty()) {
          continue;
        }
        store(
            instanceId,
            row.get().taskId(),
            null,
            row.get().lastError(),
            null,
            "found DEAD without a dead letter (its event was lost); no stack trace",
            row.get().traceId());
      }
    } catch (RuntimeException e) {
      log.warn("Dead-letter sweep failed, the next one retries: {}", e.toString());
    }
  }

  @Override
  public void close() {
    relay.ifPresent(AlertRelay::close);
    loop.close();
    // A sweep in progress reads the database and may store letters: it ends before the caller
    // closes the pool.
    DaemonThreads.stop(sweeper, Duration.ofSeconds(10));
    alerter.close();
    parkingProducer.close(Duration.ofSeconds(5));
    log.info("Dead-letter stage {} stopped", context.nodeId());
  }
}
