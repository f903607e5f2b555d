package dev.ax.resolver;

import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.stage.StageContext;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.LogAndContinueExceptionHandler;
import org.apache.kafka.streams.errors.LogAndContinueProcessingExceptionHandler;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dependency resolver as a stage: runs {@link ResolverTopology} as a Kafka Streams application
 * ({@code <prefix>ax-resolver}) with {@code exactly_once_v2}, so a crash or rebalance neither loses
 * nor repeats a trigger. It scales by the partitions of {@code ax.flow.succeeded}; its join state
 * is a local store backed by a changelog topic. At start it makes sure {@code ax.task.dependencies}
 * is compacted (the latest entry per upstream is the graph).
 *
 * <p>Threading: Kafka Streams' own threads; {@link #close()} from any thread.
 */
public final class ResolverStage implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ResolverStage.class);

  private final StageContext context;
  private final KafkaStreams streams;
  private final KafkaStreamsMetrics metrics;

  public ResolverStage(StageContext context, ResolverConfig config) {
    this.context = context;
    this.streams =
        new KafkaStreams(
            ResolverTopology.build(
                context.topics(),
                config.joinRetention(),
                JoinProcessor.SWEEP_EVERY,
                context.meters()),
            streamsProperties(context, config));
    this.metrics = new KafkaStreamsMetrics(streams);
  }

  /** The Streams application's settings: exactly-once, low latency, poison records parked. */
  private static Properties streamsProperties(StageContext context, ResolverConfig config) {
    // The process's client settings (brokers, security) first: Streams passes them to its clients.
    Properties props = context.kafka().properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, context.topics().group("resolver"));
    props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir(context, config).toString());
    props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, context.common().topicReplication());
    // Latency over throughput: under exactly-once a trigger is visible downstream only once its
    // transaction commits, and the stream thread commits between polls; a long poll or commit
    // interval would hold a finished join back (its input is keyed by flow run already, so it
    // needs no repartition: one transaction, the command's).
    props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 10);
    props.put(StreamsConfig.POLL_MS_CONFIG, 10);
    props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
    props.put(StreamsConfig.CLIENT_ID_CONFIG, context.nodeId() + "-resolver");
    props.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 10_000);
    props.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 3_000);
    // A fetch is answered as soon as a record is there; the wait only bounds idle polling.
    props.put(StreamsConfig.consumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG), 500);
    // A record the topology cannot process is logged and parked on ax.parked.resolver (Kafka
    // Streams' own dead-letter records: original key and value, the error in __streams.errors.*
    // headers) instead of failing the stream thread, which would be replaced and meet the same
    // record again, forever.
    props.put(
        StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG,
        LogAndContinueProcessingExceptionHandler.class.getName());
    props.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, true);
    props.put(
        StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG,
        LogAndContinueExceptionHandler.class.getName());
    props.put(
        StreamsConfig.ERRORS_DEAD_LETTER_QUEUE_TOPIC_NAME_CONFIG,
        context.topics().parked("resolver"));
    return props;
  }

  private static Path stateDir(StageContext context, ResolverConfig config) {
    return config
        .stateDir()
        .orElseGet(
            () ->
                Path.of(
                    System.getProperty("java.io.tmpdir"),
                    "ax-resolver",
                    context.topics().prefix() + context.nodeId()));
  }

  public ResolverStage start() {
    ensureCompacted();
    metrics.bindTo(context.meters());
    streams.setUncaughtExceptionHandler(
        e -> {
          log.error("Resolver stream thread failed; replacing it", e);
          return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
        });
    streams.setStateListener(
        (now, before) -> log.info("Resolver {}: {} -> {}", context.nodeId(), before, now));
    streams.start();
    log.info(
        "Resolver {} started: {} joined with {} into {}",
        context.nodeId(),
        context.topics().flowSucceeded(),
        context.topics().dependencies(),
        context.topics().commands());
    return this;
  }

  /** True once the application is running (state restored, tasks assigned). */
  public boolean isRunning() {
    return streams.state() == KafkaStreams.State.RUNNING;
  }

  private void ensureCompacted() {
    try (Admin admin = KafkaClients.admin(context.kafka())) {
      ConfigResource topic =
          new ConfigResource(ConfigResource.Type.TOPIC, context.topics().dependencies());
      admin
          .incrementalAlterConfigs(
              Map.of(
                  topic,
                  List.of(
                      new AlterConfigOp(
                          new ConfigEntry(
                              TopicConfig.CLEANUP_POLICY_CONFIG,
                              TopicConfig.CLEANUP_POLICY_COMPACT),
                          AlterConfigOp.OpType.SET))))
          .all()
          .get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      log.error(
          "Could not make {} compacted: if it deletes by retention, graph entries older than its"
              + " retention.ms are lost, and dependency tasks whose entry is gone no longer"
              + " trigger after the resolver rebuilds its table. Set cleanup.policy=compact on it: {}",
          context.topics().dependencies(),
          e.toString());
    }
  }

  @Override
  public void close() {
    streams.close(Duration.ofSeconds(30));
    metrics.close();
    log.info("Resolver {} stopped", context.nodeId());
  }
}
