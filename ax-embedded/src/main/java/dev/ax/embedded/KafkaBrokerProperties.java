package dev.ax.embedded;

import java.nio.file.Path;
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

  private KafkaBrokerProperties() {}

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

    // A single node: every internal topic has one replica.
    p.setProperty("offsets.topic.replication.factor", "1");
    p.setProperty("offsets.topic.num.partitions", INTERNAL_TOPIC_PARTITIONS);
    p.setProperty("transaction.state.log.replication.factor", "1");
    p.setProperty("transaction.state.log.min.isr", "1");
    p.setProperty("transaction.state.log.num.partitions", INTERNAL_TOPIC_PARTITIONS);
    p.setProperty("share.coordinator.state.topic.replication.factor", "1");
    p.setProperty("share.coordinator.state.topic.min.isr", "1");
    p.setProperty("share.coordinator.state.topic.num.partitions", INTERNAL_TOPIC_PARTITIONS);
    p.setProperty("default.replication.factor", "1");
    p.setProperty("min.insync.replicas", "1");
    p.setProperty("num.partitions", "1");

    // Topics are created explicitly (SharedInfrastructure.createTopics), never by a typo.
    p.setProperty("auto.create.topics.enable", "false");
    // Groups form at once instead of waiting 3 s for more members.
    p.setProperty("group.initial.rebalance.delay.ms", "0");
    p.setProperty("group.streams.initial.rebalance.delay.ms", "0");
    // The log cleaner's dedupe buffer defaults to 128 MiB of heap; 4 MiB is plenty here.
    p.setProperty("log.cleaner.dedupe.buffer.size", "4194304");
    p.setProperty("num.network.threads", "2");
    p.setProperty("num.io.threads", "4");
    p.setProperty("num.recovery.threads.per.data.dir", "1");
    return p;
  }
}
