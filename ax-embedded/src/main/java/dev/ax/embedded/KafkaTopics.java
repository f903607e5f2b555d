package dev.ax.embedded;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates topics through an {@link Admin} client and waits until every partition has a leader.
 * Thread-safe if the admin client is (Kafka's is).
 */
final class KafkaTopics {

  private static final Logger log = LoggerFactory.getLogger(KafkaTopics.class);

  private static final Duration POLL_INTERVAL = Duration.ofMillis(50);

  private final Admin admin;
  private final Duration timeout;

  KafkaTopics(Admin admin, Duration timeout) {
    this.admin = admin;
    this.timeout = timeout;
  }

  /**
   * Creates the topics that do not exist yet (replication factor: the broker's default) and waits
   * until all of them are visible with a leader for every partition.
   *
   * @throws IllegalArgumentException if a partition count is null or below 1
   * @throws IllegalStateException if the broker refuses or the topics are not ready in time
   */
  void create(Map<String, Integer> partitionsByTopic) {
    if (partitionsByTopic.isEmpty()) {
      return;
    }
    List<NewTopic> newTopics = new ArrayList<>(partitionsByTopic.size());
    partitionsByTopic.forEach(
        (topic, partitions) -> {
          if (partitions == null || partitions < 1) {
            throw new IllegalArgumentException(
                "partitions of topic '" + topic + "' must be >= 1, was " + partitions);
          }
          newTopics.add(new NewTopic(topic, Optional.of(partitions), Optional.empty()));
        });
    long deadline = System.nanoTime() + timeout.toNanos();
    admin
        .createTopics(newTopics)
        .values()
        .forEach((topic, future) -> awaitCreated(topic, future, deadline));
    awaitLeaders(partitionsByTopic, deadline);
  }

  private void awaitCreated(String topic, KafkaFuture<Void> future, long deadline) {
    try {
      future.get(remainingMillis(deadline), TimeUnit.MILLISECONDS);
      log.debug("Created topic {}", topic);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new IllegalStateException("cannot create topic '" + topic + "'", e.getCause());
      }
    } catch (TimeoutException e) {
      throw new IllegalStateException("topic '" + topic + "' not created within " + timeout, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted creating topic '" + topic + "'", e);
    }
  }

  private void awaitLeaders(Map<String, Integer> partitionsByTopic, long deadline) {
    while (true) {
      Optional<Map<String, TopicDescription>> descriptions =
          describe(partitionsByTopic.keySet(), deadline);
      if (descriptions.isPresent() && allHaveLeaders(descriptions.get())) {
        warnOnPartitionMismatch(partitionsByTopic, descriptions.get());
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "topics " + partitionsByTopic.keySet() + " not visible with leaders within " + timeout);
      }
      sleep(POLL_INTERVAL);
    }
  }

  private Optional<Map<String, TopicDescription>> describe(
      Collection<String> topics, long deadline) {
    try {
      return Optional.of(
          admin
              .describeTopics(topics)
              .allTopicNames()
              .get(remainingMillis(deadline), TimeUnit.MILLISECONDS));
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return Optional.empty();
      }
      throw new IllegalStateException("cannot describe topics " + topics, e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("topics " + topics + " not visible within " + timeout, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for topics " + topics, e);
    }
  }

  private static boolean allHaveLeaders(Map<String, TopicDescription> descriptions) {
    return descriptions.values().stream()
        .flatMap(d -> d.partitions().stream())
        .allMatch(p -> p.leader() != null && !p.leader().isEmpty());
  }

  private static void warnOnPartitionMismatch(
      Map<String, Integer> wanted, Map<String, TopicDescription> actual) {
    wanted.forEach(
        (topic, partitions) -> {
          int existing = actual.get(topic).partitions().size();
          if (existing != partitions) {
            log.warn(
                "Topic {} already existed with {} partitions, not the {} requested",
                topic,
                existing,
                partitions);
          }
        });
  }

  private static long remainingMillis(long deadline) {
    return Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for topics", e);
    }
  }
}
