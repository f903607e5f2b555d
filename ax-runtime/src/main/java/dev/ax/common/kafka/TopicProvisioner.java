package dev.ax.common.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates AX's topics that do not exist yet (existing ones are left as they are). A stage started
 * while the broker is away (restarted by its deployment) waits for it: each look at the topics
 * waits {@link #STEP_TIMEOUT}, and a look that times out is repeated, with a WARN, until {@link
 * #OUTAGE_BOUND} has passed; only then does the stage give up (and its process exits, to be
 * restarted). Stateless.
 */
public final class TopicProvisioner {

  private static final Logger log = LoggerFactory.getLogger(TopicProvisioner.class);

  /** How long one look at the topics (a listing, a creation) waits for the broker. */
  static final Duration STEP_TIMEOUT = Duration.ofSeconds(30);

  /** How long a broker outage at a stage's start is ridden out. */
  static final Duration OUTAGE_BOUND = Duration.ofMinutes(5);

  private TopicProvisioner() {}

  public static void ensure(
      KafkaConnection kafka, Map<String, Integer> partitionsByTopic, short replication) {
    long deadlineNs = System.nanoTime() + OUTAGE_BOUND.toNanos();
    while (true) {
      try {
        ensureOnce(kafka, partitionsByTopic, replication);
        return;
      } catch (BrokerAway e) {
        if (System.nanoTime() - deadlineNs > 0) {
          throw new IllegalStateException(
              "cannot create topics on "
                  + kafka
                  + " within "
                  + OUTAGE_BOUND
                  + ": "
                  + e.getMessage(),
              e.getCause());
        }
        log.warn(
            "The broker {} did not answer about the topics within {} s; trying again (for at most"
                + " {} min from the start)",
            kafka,
            STEP_TIMEOUT.toSeconds(),
            OUTAGE_BOUND.toMinutes());
      }
    }
  }

  /** The broker did not answer one look in time. */
  private static final class BrokerAway extends Exception {
    BrokerAway(TimeoutException cause) {
      super(String.valueOf(cause.getMessage()), cause);
    }
  }

  private static void ensureOnce(
      KafkaConnection kafka, Map<String, Integer> partitionsByTopic, short replication)
      throws BrokerAway {
    try (Admin admin = KafkaClients.admin(kafka)) {
      Set<String> existing =
          admin.listTopics().names().get(STEP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      List<NewTopic> missing = new ArrayList<>();
      partitionsByTopic.forEach(
          (name, partitions) -> {
            if (!existing.contains(name)) {
              NewTopic topic = new NewTopic(name, partitions, replication);
              if (name.endsWith(Topics.DEPENDENCIES)) {
                // A table: the latest entry per key is the dependency graph.
                topic.configs(Map.of("cleanup.policy", "compact"));
              }
              missing.add(topic);
            }
          });
      if (missing.isEmpty()) {
        return;
      }
      try {
        admin.createTopics(missing).all().get(STEP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) {
          throw e;
        }
      }
      log.info("Created topics {}", missing.stream().map(NewTopic::name).toList());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topics", e);
    } catch (TimeoutException e) {
      throw new BrokerAway(e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException timeout) {
        throw new BrokerAway(new TimeoutException(timeout.getMessage()));
      }
      throw new IllegalStateException(
          "cannot create topics on " + kafka + ": " + e.getMessage(), e);
    }
  }
}
