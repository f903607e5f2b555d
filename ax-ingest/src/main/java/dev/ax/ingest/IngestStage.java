package dev.ax.ingest;

import dev.ax.common.contract.CommandReader;
import dev.ax.common.kafka.ConsumerLoop;
import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.kafka.RejectedRecords;
import dev.ax.common.kafka.Subscription;
import dev.ax.common.kafka.Topics;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.stage.StageContext;
import dev.ax.common.stage.Switches;
import dev.ax.common.store.CalendarStore;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.NamespaceStore;
import dev.ax.common.store.TaskStore;
import java.time.Duration;
import java.util.Set;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ingest: consumes {@code ax.task.commands} and every created namespace's {@code
 * ax.<namespace>.task.commands} (a pattern subscription; the namespace comes from the topic, see
 * {@link NamespaceIntake}), validates each command, stores new tasks with their first instance (one
 * transaction per polled batch, idempotent on taskId), announces instances due soon on {@code
 * ax.task.scheduled}, and sends every message it cannot accept to {@code ax.task.commands.rejected}
 * (a created namespace's to its own) with the reason in a header and the original key and bytes
 * unchanged (or, when that is too large for Kafka, a digest of them: {@link RejectedRecords}). A
 * record whose key is neither absent nor the taskId is rejected. Offsets are committed only after
 * the database and the rejected topic have what was read.
 *
 * <p>Shape: the {@link IngestLoop} reads each batch, the {@link CreatePlanner} decides what its
 * CREATE and TRIGGER commands come to, and the loop applies that through the {@link IngestPort}
 * ({@link StoreIngestPort} here; an in-memory one in tests).
 *
 * <p>Threading: one consumer thread (see {@link ConsumerLoop}) owns the loop; the {@link
 * GraphRepublisher}'s thread publishes the dependency graph again every {@code
 * AX_DEPENDENCY_REPUBLISH}; {@link #close()} from any thread.
 */
public final class IngestStage implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(IngestStage.class);

  /**
   * Commands per batch (one transaction). Smaller batches commit sooner, which matters for tasks
   * with short delays: a delay counts from acceptance, and an instance is visible at commit.
   */
  private static final int MAX_POLL_RECORDS = 200;

  private final String commandsTopic;
  private final KafkaProducer<String, byte[]> producer;
  private final ConsumerLoop loop;
  private final Switches switches;
  private final GraphRepublisher graphRepublisher;

  /** Builds every part once, each handed the stores, clients and clock it uses. */
  public IngestStage(StageContext context, IngestConfig config) {
    this.producer = context.producer("ingest");
    this.commandsTopic = context.topics().commands();
    DataSource dataSource = context.dataSource();
    // Read on the consumer thread only, as the rejections and parkings that use it are.
    KnownNamespaces known =
        new KnownNamespaces(
            () ->
                new NamespaceStore(dataSource)
                    .all().stream().map(NamespaceStore.Row::namespace).toList(),
            context.clock());
    UnaryOperator<String> rejectedTopic = rejectedTopics(context.topics(), known);
    FireTimes fireTimes = new FireTimes();
    TaskStore tasks = new TaskStore(dataSource);
    TaskLifecycleStore lifecycleStore = new TaskLifecycleStore(dataSource, context.topics());
    DependencyIntake dependencies =
        new DependencyIntake(
            tasks,
            new InstanceStore(dataSource),
            lifecycleStore,
            context.topics(),
            context.nodeId());
    this.graphRepublisher =
        new GraphRepublisher(dependencies, producer, config.dependencyRepublish());
    this.switches = context.switches("ingest", Set.of(Switches.INTAKE));
    LifecycleIntake lifecycle =
        new LifecycleIntake(
            new LifecycleStores(
                lifecycleStore,
                new TaskUpdateStore(dataSource, fireTimes, config.maxActiveTasksPerGroup()),
                new GroupLifecycleStore(dataSource, context.topics())),
            new LifecycleAnnouncements(tasks, producer, context.topics().scheduled()),
            new LifecycleCounters(context.meters()),
            context.clock(),
            context.nodeId());
    IngestPort port =
        new StoreIngestPort(
            tasks,
            new ActiveTaskLimit(tasks, config.maxActiveTasksPerGroup()),
            new ActiveTaskLimit(
                tasks, config.maxActiveTasksPerNamespace(), ActiveTaskLimit.Scope.NAMESPACE),
            dependencies,
            lifecycle,
            producer,
            new RejectedRecords(producer, rejectedTopic, KafkaClients.MAX_REQUEST_SIZE_BYTES),
            context.topics(),
            context.nodeId());
    IngestCounters counts = new IngestCounters(context.meters());
    IngestLoop batches =
        new IngestLoop(
            context.clock(),
            new CommandReader(config.defaultTimeout(), config.intakeLimits(), context.clock()),
            new NamespaceIntake(
                context.topics(),
                known,
                new KnownCalendars(new CalendarStore(dataSource)::existing, context.clock())),
            new CreatePlanner(fireTimes),
            port,
            config.announceHorizon(),
            counts,
            context.topics().commandsRejected());
    this.loop =
        context.groupLoop(
            "ingest",
            MAX_POLL_RECORDS,
            Subscription.matching(context.topics().commandsPattern()),
            new IntakeGate(
                batches::handle,
                switches::intakeEnabled,
                switches::intakeEnabled,
                context.topics()::namespaceOfCommands,
                new NamespaceRate(config.maxCommandsPerSecondPerNamespace()),
                context.clock(),
                counts::throttled),
            ConsumerLoop.CommitMode.SYNC,
            context.commandParking(producer, rejectedTopic));
  }

  /**
   * Where a refused record goes, by its topic: a created namespace's to its own rejected topic
   * (created with it); a record from any other topic the pattern matched to the default one, which
   * always exists, so a stray topic cannot stall ingest on a send to a topic that is not there.
   */
  private static UnaryOperator<String> rejectedTopics(Topics topics, KnownNamespaces known) {
    return source ->
        topics
            .namespaceOfCommands(source)
            .filter(known::exists)
            .map(topics::commandsRejected)
            .orElse(topics.commandsRejected());
  }

  public IngestStage start() {
    graphRepublisher.start();
    switches.start(); // before the loop: a stage started with intake off reads nothing
    loop.start();
    log.info("Ingest started on {} and every namespace's commands topic", commandsTopic);
    return this;
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
