package dev.ax.api.write;

import dev.ax.api.audit.OperatorLog;
import dev.ax.common.kafka.Topics;
import dev.ax.common.model.Namespace;
import dev.ax.common.store.NamespaceStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * Creates a namespace: its three topics (commands, their rejections, completion events; as many
 * partitions as the default namespace's commands topic, the broker's replication factor), then its
 * row in {@code ax_namespace}, then an audit entry. Ingest reads a namespace's commands only once
 * its row exists, so a command sent before that is refused with a reason, never half-applied. Every
 * step may be repeated: creating a namespace twice changes nothing the second time.
 *
 * <p>Thread-safe if the admin client is (Kafka's is).
 */
public final class NamespaceCreation {

  /** How long the broker may take to create the topics. */
  static final Duration TIMEOUT = Duration.ofSeconds(30);

  /** What a create did. */
  public record Created(Namespace namespace, List<String> topicsCreated, boolean recorded) {}

  private final Admin admin;
  private final Topics topics;
  private final NamespaceStore store;
  private final OperatorLog audit;
  private final LongSupplier clockMs;

  public NamespaceCreation(
      Admin admin, Topics topics, NamespaceStore store, OperatorLog audit, LongSupplier clockMs) {
    this.admin = admin;
    this.topics = topics;
    this.store = store;
    this.audit = audit;
    this.clockMs = clockMs;
  }

  /**
   * @throws IllegalArgumentException for the default namespace (it always exists)
   * @throws IllegalStateException when the broker refuses or does not answer in time (with why)
   */
  public Created create(Namespace namespace, String actor, String reason)
      throws InterruptedException {
    if (namespace.isDefault()) {
      throw new IllegalArgumentException("the default namespace always exists");
    }
    List<String> created = createTopics(namespace);
    boolean recorded = store.create(namespace, actor, clockMs.getAsLong());
    if (recorded || !created.isEmpty()) {
      audit.record(actor, "namespace.create", namespace.name(), reason, clockMs.getAsLong());
    }
    return new Created(namespace, created, recorded);
  }

  private List<String> createTopics(Namespace namespace) throws InterruptedException {
    int partitions = partitionsOfDefaultCommands();
    List<String> created = new ArrayList<>();
    for (String topic : topics.ofNamespace(namespace)) {
      try {
        admin
            .createTopics(List.of(new NewTopic(topic, Optional.of(partitions), Optional.empty())))
            .all()
            .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        created.add(topic);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw new IllegalStateException(
              "the broker refused to create topic " + topic + ": " + e.getCause().getMessage(),
              e.getCause());
        }
      } catch (TimeoutException e) {
        throw new IllegalStateException("topic " + topic + " not created within " + TIMEOUT, e);
      }
    }
    return created;
  }

  private int partitionsOfDefaultCommands() throws InterruptedException {
    String commands = topics.commands();
    try {
      Map<String, TopicDescription> described =
          admin
              .describeTopics(List.of(commands))
              .allTopicNames()
              .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      return described.get(commands).partitions().size();
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "cannot read topic "
              + commands
              + " (is AX deployed on this broker and prefix?): "
              + e.getCause().getMessage(),
          e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("the broker did not describe " + commands + " in time", e);
    }
  }
}
