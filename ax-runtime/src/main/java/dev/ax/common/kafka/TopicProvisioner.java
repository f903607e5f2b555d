package dev.ax.common.kafka;

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

/** Creates AX's topics that do not exist yet (existing ones are left as they are). */
public final class TopicProvisioner {

  private static final Logger log = LoggerFactory.getLogger(TopicProvisioner.class);

  private TopicProvisioner() {}

  public static void ensure(
      KafkaConnection kafka, Map<String, Integer> partitionsByTopic, short replication) {
    try (Admin admin = KafkaClients.admin(kafka)) {
      Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
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
        admin.createTopics(missing).all().get(30, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) {
          throw e;
        }
      }
      log.info("Created topics {}", missing.stream().map(NewTopic::name).toList());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topics", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(
          "cannot create topics on " + kafka + ": " + e.getMessage(), e);
    }
  }
}
