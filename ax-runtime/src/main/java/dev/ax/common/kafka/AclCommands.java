package dev.ax.common.kafka;

import dev.ax.common.kafka.AclTemplate.Stage;
import dev.ax.common.model.Namespace;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;

/**
 * {@link AclTemplate}'s bindings in printable forms: {@code kafka-acls.sh} lines an operator can
 * run, and the per-stage table of docs/SECURITY.md. Thread-safe (stateless).
 */
public final class AclCommands {

  private AclCommands() {}

  /**
   * One {@code kafka-acls.sh --bootstrap-server <b> --add --allow-principal <p> --operation <Op>
   * --topic|--group|--transactional-id|--cluster <name>} line per binding, with {@code
   * --resource-pattern-type prefixed} for a prefix. Against a secured broker the operator adds
   * {@code --command-config <admin.properties>}.
   */
  public static List<String> commandLines(String bootstrapServers, List<AclBinding> bindings) {
    List<String> lines = new ArrayList<>(bindings.size());
    for (AclBinding binding : bindings) {
      ResourcePattern resource = binding.pattern();
      StringBuilder line =
          new StringBuilder("kafka-acls.sh --bootstrap-server ")
              .append(bootstrapServers)
              .append(" --add --allow-principal ")
              .append(binding.entry().principal())
              .append(" --operation ")
              .append(operationName(binding.entry().operation()))
              .append(' ')
              .append(resourceOption(resource));
      if (resource.patternType() == PatternType.PREFIXED) {
        line.append(" --resource-pattern-type prefixed");
      }
      lines.add(line.toString());
    }
    return lines;
  }

  /** {@code Read}, {@code DescribeConfigs}: how {@code kafka-acls.sh} spells an operation. */
  static String operationName(AclOperation operation) {
    StringBuilder name = new StringBuilder();
    for (String word : operation.name().split("_")) {
      name.append(word.charAt(0)).append(word.substring(1).toLowerCase(java.util.Locale.ROOT));
    }
    return name.toString();
  }

  private static String resourceOption(ResourcePattern resource) {
    return switch (resource.resourceType()) {
      case TOPIC -> "--topic " + resource.name();
      case GROUP -> "--group " + resource.name();
      case TRANSACTIONAL_ID -> "--transactional-id " + resource.name();
      case CLUSTER -> "--cluster";
      default -> throw new IllegalArgumentException("no kafka-acls.sh option for " + resource);
    };
  }

  /**
   * The per-stage table of docs/SECURITY.md: one row per {@link Stage} with the topics it reads,
   * the topics it writes, the topics it only describes (the shared topics a stage checks at start
   * are summed up as "every other shared topic"), its consumer groups, its transactional ids and
   * any other operation, for {@code template}'s topics and the one namespace {@code namespace}. A
   * prefix pattern is shown as {@code name*}.
   */
  public static String markdownTable(AclTemplate template, Namespace namespace) {
    StringBuilder table =
        new StringBuilder(
            "| stage | reads | writes | describes only | consumer groups (Read)"
                + " | transactional ids (Write, Describe) | other |\n"
                + "|---|---|---|---|---|---|---|\n");
    for (Stage stage : Stage.values()) {
      Row row = new Row();
      template.stage(stage, "User:ax-" + stage.id(), List.of(namespace)).forEach(row::add);
      table
          .append("| ")
          .append(stage.id())
          .append(" | ")
          .append(String.join(" | ", row.cells(template.sharedTopics())))
          .append(" |\n");
    }
    return table.toString();
  }

  /** One stage's bindings sorted into the table's columns. */
  private static final class Row {
    private final Map<String, Set<AclOperation>> topicOps = new LinkedHashMap<>();
    private final Set<String> groups = new LinkedHashSet<>();
    private final Set<String> transactionalIds = new LinkedHashSet<>();

    void add(AclBinding binding) {
      String name = shown(binding.pattern());
      switch (binding.pattern().resourceType()) {
        case TOPIC ->
            topicOps
                .computeIfAbsent(name, n -> new LinkedHashSet<>())
                .add(binding.entry().operation());
        case GROUP -> groups.add(name);
        case TRANSACTIONAL_ID -> transactionalIds.add(name);
        default -> throw new IllegalArgumentException("not in the table: " + binding);
      }
    }

    List<String> cells(Set<String> sharedTopics) {
      Set<String> reads = new LinkedHashSet<>();
      Set<String> writes = new LinkedHashSet<>();
      Set<String> describes = new LinkedHashSet<>();
      List<String> other = new ArrayList<>();
      Set<AclOperation> plain =
          Set.of(AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE);
      topicOps.forEach(
          (topic, ops) -> {
            boolean prefixed = topic.endsWith("*");
            if (!prefixed && ops.contains(AclOperation.READ)) {
              reads.add(topic);
            }
            if (!prefixed && ops.contains(AclOperation.WRITE)) {
              writes.add(topic);
            }
            if (ops.equals(Set.of(AclOperation.DESCRIBE))) {
              describes.add(topic);
            }
            ops.stream()
                .filter(op -> prefixed || !plain.contains(op))
                .forEach(op -> other.add(operationName(op) + " `" + topic + "`"));
          });
      String describeCell =
          !describes.isEmpty() && sharedTopics.containsAll(describes)
              ? "every other shared topic"
              : cell(describes);
      return List.of(
          cell(reads),
          cell(writes),
          describeCell,
          cell(groups),
          cell(transactionalIds),
          other.isEmpty() ? "-" : String.join(", ", other));
    }
  }

  private static String shown(ResourcePattern pattern) {
    return pattern.patternType() == PatternType.PREFIXED ? pattern.name() + "*" : pattern.name();
  }

  private static String cell(java.util.Collection<String> names) {
    if (names.isEmpty()) {
      return "-";
    }
    List<String> quoted = new ArrayList<>();
    names.forEach(name -> quoted.add("`" + name + "`"));
    return String.join(", ", quoted);
  }
}
