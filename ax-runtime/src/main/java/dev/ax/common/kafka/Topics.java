package dev.ax.common.kafka;

import dev.ax.common.model.Namespace;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The names of AX's topics, in one place, with a configurable prefix (tests use a unique prefix
 * each; deployments may share a cluster under e.g. {@code staging.}). Immutable.
 */
public final class Topics {

  public static final String COMMANDS = "ax.task.commands";
  public static final String COMMANDS_REJECTED = "ax.task.commands.rejected";
  public static final String SCHEDULED = "ax.task.scheduled";
  public static final String DUE = "ax.task.due";
  public static final String DUE_RETRY = "ax.task.due.retry";
  public static final String COMPLETED = "ax.task.completed";
  public static final String RETRY = "ax.task.retry";
  public static final String DEADLETTER = "ax.task.deadletter";

  /**
   * Successful completions again, keyed by flow run id, for the dependency resolver: every event of
   * one flow run on one partition, so its joins need no repartition hop.
   */
  public static final String FLOW_SUCCEEDED = "ax.flow.succeeded";

  /** Compacted: the dependency graph by upstream task id, for the dependency resolver. */
  public static final String DEPENDENCIES = "ax.task.dependencies";

  /**
   * Internal records a stage could not handle after {@code ConsumerLoop.POISON_TRIES} tries, one
   * topic per consuming stage ({@code ax.parked.ticker}, {@code ax.parked.dispatcher}, {@code
   * ax.parked.retry}, {@code ax.parked.deadletter}): the original key and bytes, and the reason and
   * source in the {@link RejectHeaders} headers. Ingest parks on {@link #COMMANDS_REJECTED}
   * instead. The resolver, a Kafka Streams application, parks on {@code ax.parked.resolver} through
   * Streams' own dead-letter records ({@code __streams.errors.*} headers).
   */
  public static final String PARKED = "ax.parked.";

  /** The stages that consume internal topics, each with its parking topic. */
  public static final List<String> PARKING_STAGES =
      List.of("ticker", "dispatcher", "retry", "deadletter", "resolver");

  /** Every topic: the shared ones, then each parking stage's. */
  private static final List<String> ALL =
      Stream.concat(
              Stream.of(
                  COMMANDS,
                  COMMANDS_REJECTED,
                  SCHEDULED,
                  DUE,
                  DUE_RETRY,
                  COMPLETED,
                  RETRY,
                  DEADLETTER,
                  DEPENDENCIES,
                  FLOW_SUCCEEDED),
              PARKING_STAGES.stream().map(stage -> PARKED + stage))
          .toList();

  private static final String REJECTED_SUFFIX = ".rejected";
  private static final String COMMANDS_TAIL = "task.commands";
  private static final String COMPLETED_TAIL = "task.completed";

  private static final String NAMESPACE_PART = Namespace.NAME.pattern();

  private static final Pattern LEGAL_PREFIX = Pattern.compile("[A-Za-z0-9._-]{0,100}");

  private final String prefix;

  public Topics(String prefix) {
    if (prefix == null || !LEGAL_PREFIX.matcher(prefix).matches()) {
      throw new IllegalArgumentException(
          "topic prefix must match " + LEGAL_PREFIX.pattern() + ": '" + prefix + "'");
    }
    this.prefix = prefix;
  }

  public String commands() {
    return prefix + COMMANDS;
  }

  public String commandsRejected() {
    return prefix + COMMANDS_REJECTED;
  }

  /**
   * The commands topic of {@code namespace}: {@code ax.<namespace>.task.commands}, or {@link
   * #COMMANDS} for the default namespace.
   */
  public String commands(Namespace namespace) {
    return namespace.isDefault()
        ? commands()
        : prefix + "ax." + namespace.name() + ".task.commands";
  }

  /**
   * Where ingest rejects what arrived on {@code commands(namespace)}: that name + {@code
   * .rejected}.
   */
  public String commandsRejected(Namespace namespace) {
    return rejectedOf(commands(namespace));
  }

  /** Where ingest rejects a record read from {@code commandsTopic}: {@code <that>.rejected}. */
  public static String rejectedOf(String commandsTopic) {
    return commandsTopic + REJECTED_SUFFIX;
  }

  /** The completion events of {@code namespace}'s tasks: {@code ax.<namespace>.task.completed}. */
  public String completed(Namespace namespace) {
    return namespace.isDefault()
        ? completed()
        : prefix + "ax." + namespace.name() + "." + COMPLETED_TAIL;
  }

  /** The topics a namespace owns: its commands, their rejections, its completion events. */
  public List<String> ofNamespace(Namespace namespace) {
    return List.of(commands(namespace), commandsRejected(namespace), completed(namespace));
  }

  /**
   * Every namespace's commands topic, the default one included: what ingest subscribes to, so a
   * namespace created while it runs is read within the consumer's metadata refresh.
   */
  public Pattern commandsPattern() {
    return everyNamespaces(COMMANDS_TAIL);
  }

  /**
   * Every namespace's completion events topic, the default one included (the FIXED_DELAY chainer).
   */
  public Pattern completedPattern() {
    return everyNamespaces(COMPLETED_TAIL);
  }

  /** The namespace whose commands arrive on {@code topic}, or empty for any other topic. */
  public Optional<Namespace> namespaceOfCommands(String topic) {
    return namespaceOf(topic, COMMANDS_TAIL);
  }

  /** The namespace whose completion events are on {@code topic}, or empty for any other topic. */
  public Optional<Namespace> namespaceOfCompleted(String topic) {
    return namespaceOf(topic, COMPLETED_TAIL);
  }

  private Pattern everyNamespaces(String tail) {
    return Pattern.compile(
        Pattern.quote(prefix) + "ax\\.(?:" + NAMESPACE_PART + "\\.)?" + Pattern.quote(tail));
  }

  private Optional<Namespace> namespaceOf(String topic, String tail) {
    String head = prefix + "ax.";
    if (topic.equals(head + tail)) {
      return Optional.of(Namespace.DEFAULT);
    }
    String dotTail = "." + tail;
    if (!topic.startsWith(head) || !topic.endsWith(dotTail)) {
      return Optional.empty();
    }
    return Namespace.parse(topic.substring(head.length(), topic.length() - dotTail.length()))
        .filter(n -> !n.isDefault());
  }

  public String scheduled() {
    return prefix + SCHEDULED;
  }

  public String due() {
    return prefix + DUE;
  }

  public String dueRetry() {
    return prefix + DUE_RETRY;
  }

  public String completed() {
    return prefix + COMPLETED;
  }

  public String retry() {
    return prefix + RETRY;
  }

  public String deadletter() {
    return prefix + DEADLETTER;
  }

  public String flowSucceeded() {
    return prefix + FLOW_SUCCEEDED;
  }

  public String dependencies() {
    return prefix + DEPENDENCIES;
  }

  /** The parking topic of {@code stage}, one of {@link #PARKING_STAGES}. */
  public String parked(String stage) {
    if (!PARKING_STAGES.contains(stage)) {
      throw new IllegalArgumentException(
          "no parking topic for stage '" + stage + "' (one of " + PARKING_STAGES + ")");
    }
    return prefix + PARKED + stage;
  }

  /** Consumer group ids carry the prefix too, so isolated deployments never share offsets. */
  public String group(String stage) {
    return prefix + "ax-" + stage;
  }

  /** Every topic with the partition count to create it with. */
  public Map<String, Integer> all(int partitions) {
    Map<String, Integer> topics = new LinkedHashMap<>();
    for (String name : ALL) {
      topics.put(prefix + name, partitions);
    }
    return topics;
  }

  public String prefix() {
    return prefix;
  }
}
