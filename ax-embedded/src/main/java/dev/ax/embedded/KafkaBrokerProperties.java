package dev.ax.embedded;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * The broker configuration of the embedded single-node KRaft cluster: combined broker and
 * controller, loopback listeners, replication factor 1 everywhere, and settings that keep a test
 * broker small and quick. Thread-safe (stateless).
 */
final class KafkaBrokerProperties {

  static final int NODE_ID = 1;
  static final String BROKER_LISTENER = "PLAINTEXT";
  static final String CONTROLLER_LISTENER = "CONTROLLER";

  /** Partitions of the internal topics (__consumer_offsets etc.); Kafka's default of 50 is slow. */
  private static final String INTERNAL_TOPIC_PARTITIONS = "5";

  /**
   * The settings tests may notice, which the container broker ({@link TestcontainersServers}) gets
   * too: one partition and replica by default, small internal topics, topics never created by
   * accident, groups formed at once.
   */
  static final Map<String, String> TEST_VISIBLE =
      Map.of(
          "num.partitions", "1",
          "default.replication.factor", "1",
          "min.insync.replicas", "1",
          "offsets.topic.num.partitions", INTERNAL_TOPIC_PARTITIONS,
          "transaction.state.log.num.partitions", INTERNAL_TOPIC_PARTITIONS,
          "share.coordinator.state.topic.replication.factor", "1",
          "share.coordinator.state.topic.min.isr", "1",
          // Topics are created explicitly (SharedInfrastructure.createTopics), never by a typo.
          "auto.create.topics.enable", "false",
          // Groups form at once instead of waiting 3 s for more members.
          "group.initial.rebalance.delay.ms", "0");

  /** The embedded broker's other fixed settings: a single node, kept small in heap and threads. */
  private static final Map<String, String> EMBEDDED_ONLY =
      Map.of(
          // A single node: every internal topic has one replica.
          "offsets.topic.replication.factor", "1",
          "transaction.state.log.replication.factor", "1",
          "transaction.state.log.min.isr", "1",
          "share.coordinator.state.topic.num.partitions", INTERNAL_TOPIC_PARTITIONS,
          // Streams groups form at once too.
          "group.streams.initial.rebalance.delay.ms", "0",
          // The log cleaner's dedupe buffer defaults to 128 MiB of heap; 4 MiB is plenty here.
          "log.cleaner.dedupe.buffer.size", "4194304",
          "num.network.threads", "2",
          "num.io.threads", "4",
          "num.recovery.threads.per.data.dir", "1");

  private KafkaBrokerProperties() {}

  /**
   * Broker settings as the {@code apache/kafka} image takes them from its environment: {@code
   * KAFKA_} and the name in upper case, dots as underscores (the names here have no underscore or
   * dash, which the image spells otherwise).
   */
  static Map<String, String> asImageEnvironment(Map<String, String> settings) {
    Map<String, String> environment = new HashMap<>();
    settings.forEach(
        (name, value) ->
            environment.put("KAFKA_" + name.toUpperCase(Locale.ROOT).replace('.', '_'), value));
    return environment;
  }

  static Properties of(Path logDir, int brokerPort, int controllerPort) {
    Properties p = new Properties();
    p.setProperty("process.roles", "broker,controller");
    p.setProperty("node.id", String.valueOf(NODE_ID));
    p.setProperty("controller.quorum.voters", NODE_ID + "@127.0.0.1:" + controllerPort);
    p.setProperty("controller.listener.names", CONTROLLER_LISTENER);
    p.setProperty("inter.broker.listener.name", BROKER_LISTENER);
    p.setProperty(
        "listeners",
        BROKER_LISTENER
            + "://127.0.0.1:"
            + brokerPort
            + ","
            + CONTROLLER_LISTENER
            + "://127.0.0.1:"
            + controllerPort);
    p.setProperty("advertised.listeners", BROKER_LISTENER + "://127.0.0.1:" + brokerPort);
    p.setProperty(
        "listener.security.protocol.map",
        BROKER_LISTENER + ":PLAINTEXT," + CONTROLLER_LISTENER + ":PLAINTEXT");
    p.setProperty("log.dirs", logDir.toString());
    p.setProperty("metadata.log.dir", logDir.toString());

    p.putAll(TEST_VISIBLE);
    p.putAll(EMBEDDED_ONLY);
    return p;
  }
}
