package dev.ax.common.stage;

import dev.ax.common.config.CommonConfig;
import dev.ax.common.kafka.ConsumerLoop;
import dev.ax.common.kafka.ConsumerLoop.BatchHandler;
import dev.ax.common.kafka.ConsumerLoop.CommitMode;
import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.kafka.KafkaConnection;
import dev.ax.common.kafka.LoopWatcher;
import dev.ax.common.kafka.RecordParking;
import dev.ax.common.kafka.Subscription;
import dev.ax.common.kafka.Topics;
import dev.ax.common.store.SwitchStore;
import dev.ax.common.time.Clock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * What every stage is wired with: where Kafka is and how to reach it ({@link KafkaConnection}),
 * where the database is, which topics, which clock, who this node is, where metrics go, and the
 * shared configuration ({@link CommonConfig}; a stage's own configuration is handed to it beside
 * the context). Immutable; the parts are thread-safe.
 *
 * <p>{@code controlDataSource} is a small pool with short timeouts for the ticker lease heartbeat
 * and the clock's readings: they must neither wait behind the stage's work for a connection nor
 * hang on a database that is away (see {@code Database.openControl}).
 *
 * <p>{@code loops} hears what becomes of every consumer loop the context builds (a refusal by the
 * broker, a death): in a process run by {@link StageRuntime}, its {@link LoopHealth}, which the
 * readiness probe reads and which ends the process when a loop dies; for tests and tools, {@link
 * LoopWatcher#LOG_ONLY}, which only logs them.
 */
public record StageContext(
    CommonConfig common,
    KafkaConnection kafka,
    Topics topics,
    DataSource dataSource,
    DataSource controlDataSource,
    Clock clock,
    String nodeId,
    MeterRegistry meters,
    LoopWatcher loops) {

  /** How long a consumer loop waits before it tries a batch again after an outage. */
  public static final Duration OUTAGE_RETRY = Duration.ofSeconds(1);

  /** How often a pattern subscription looks for new matching topics (a namespace created). */
  public static final Duration PATTERN_REFRESH = Duration.ofSeconds(10);

  /** The same wiring for another node id (a second stage of one kind in one process). */
  public StageContext withNodeId(String otherNodeId) {
    return new StageContext(
        common, kafka, topics, dataSource, controlDataSource, clock, otherNodeId, meters, loops);
  }

  /** The bootstrap servers, for log lines and for clients of tests. */
  public String bootstrapServers() {
    return kafka.bootstrapServers();
  }

  /**
   * A consumer loop in the consumer group of {@code role}, committing after each batch: see {@link
   * #groupLoop(String, int, List, BatchHandler, CommitMode, RecordParking)}.
   */
  public ConsumerLoop groupLoop(
      String role,
      int maxPollRecords,
      List<String> topicNames,
      BatchHandler handler,
      RecordParking parking) {
    return groupLoop(role, maxPollRecords, topicNames, handler, CommitMode.SYNC, parking);
  }

  /**
   * A consumer loop in the consumer group of {@code role} (e.g. {@code "retry"}) on {@code
   * topicNames}, the one way a stage reads its topics in a group: thread {@code ax-<role>}, group
   * {@code <prefix><role>}, client id {@code <node>-<role>}, at most {@code maxPollRecords} a poll,
   * a batch that meets an outage tried again every {@link #OUTAGE_RETRY}, and its refusals and
   * death told to {@link #loops}.
   */
  public ConsumerLoop groupLoop(
      String role,
      int maxPollRecords,
      List<String> topicNames,
      BatchHandler handler,
      CommitMode commitMode,
      RecordParking parking) {
    return groupLoop(
        role, maxPollRecords, Subscription.of(topicNames), handler, commitMode, parking);
  }

  /**
   * As above, reading what {@code subscription} names. A pattern's matches are looked for again
   * every {@link #PATTERN_REFRESH}, so a topic created meanwhile (a new namespace's) is read within
   * that.
   */
  public ConsumerLoop groupLoop(
      String role,
      int maxPollRecords,
      Subscription subscription,
      BatchHandler handler,
      CommitMode commitMode,
      RecordParking parking) {
    KafkaConsumer<String, byte[]> consumer =
        subscription instanceof Subscription.Matching
            ? KafkaClients.consumer(
                kafka,
                topics.group(role),
                nodeId + "-" + role,
                maxPollRecords,
                meters,
                PATTERN_REFRESH)
            : KafkaClients.consumer(
                kafka, topics.group(role), nodeId + "-" + role, maxPollRecords, meters);
    return new ConsumerLoop(
        "ax-" + role, consumer, subscription, handler, OUTAGE_RETRY, commitMode, parking, loops);
  }

  /**
   * The producer of {@code role} (client id {@code <node>-<role>}), exporting its metrics until it
   * is closed.
   */
  public KafkaProducer<String, byte[]> producer(String role) {
    return KafkaClients.producer(kafka, nodeId + "-" + role, meters);
  }

  /**
   * Where {@code stage}'s consumer loops park the internal records they cannot handle: its topic
   * {@code ax.parked.<stage>}, counted by {@code ax.records.parked{stage=...}}.
   */
  public RecordParking parking(KafkaProducer<String, byte[]> producer, String stage) {
    return new RecordParking(producer, topics.parked(stage), parkedCounter(stage));
  }

  /**
   * The emergency switches as {@code role} (e.g. {@code "ingest"}) sees them, read from this
   * database every {@code AX_SWITCH_POLL} and recorded as applied under {@code ax-<role>@<node>}:
   * the one way a stage builds its {@link Switches}.
   *
   * @param applied the switches the stage applies ({@link Switches#INTAKE} and so on)
   */
  public Switches switches(String role, Set<String> applied) {
    return new Switches(
        new SwitchStore(dataSource),
        clock,
        common.switchPoll(),
        "ax-" + role + "@" + nodeId,
        applied);
  }

  /** Ingest's parking: commands it cannot handle go to the rejected topic like invalid ones. */
  public RecordParking commandParking(
      KafkaProducer<String, byte[]> producer,
      java.util.function.UnaryOperator<String> rejectedTopicOf) {
    return new RecordParking(
        producer, topics.commandsRejected(), rejectedTopicOf, parkedCounter("ingest"));
  }

  private Counter parkedCounter(String stage) {
    return Counter.builder("ax.records.parked")
        .description("records a stage could not handle after its tries, moved out of its way")
        .tag("stage", stage)
        .register(meters);
  }
}
