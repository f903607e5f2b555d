package dev.ax.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.common.kafka.AclTemplate.Stage;
import dev.ax.common.model.Namespace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;

class AclTemplateTest {

  private static final Topics TOPICS = new Topics("p.");
  private static final AclTemplate TEMPLATE = new AclTemplate(TOPICS);
  private static final Namespace A = new Namespace("a");
  private static final Namespace B = new Namespace("b");
  private static final Path SECURITY_DOC = Path.of("..", "docs", "SECURITY.md");

  @Test
  void aTenantMayCommandAndReadItsOwnNamespaceOnly() {
    List<AclBinding> bindings = TEMPLATE.tenant(A, "User:alice");

    assertThat(rendered(bindings))
        .containsExactlyInAnyOrder(
            "TOPIC LITERAL p.ax.a.task.commands WRITE",
            "TOPIC LITERAL p.ax.a.task.commands DESCRIBE",
            "TOPIC LITERAL p.ax.a.task.completed READ",
            "TOPIC LITERAL p.ax.a.task.completed DESCRIBE",
            "TOPIC LITERAL p.ax.a.task.commands.rejected READ",
            "TOPIC LITERAL p.ax.a.task.commands.rejected DESCRIBE",
            "GROUP PREFIXED a. READ");
    assertThat(bindings)
        .allSatisfy(
            b -> {
              assertThat(b.entry().principal()).isEqualTo("User:alice");
              assertThat(b.entry().host()).isEqualTo("*");
              assertThat(b.entry().permissionType()).isEqualTo(AclPermissionType.ALLOW);
            });
    assertThat(rendered(TEMPLATE.tenant(B, "User:bob", "team-b-")))
        .contains("GROUP PREFIXED team-b- READ")
        .noneMatch(line -> line.contains(".a."));
  }

  @Test
  void theDefaultNamespacesTenantGetsTheUnqualifiedTopics() {
    assertThat(rendered(TEMPLATE.tenant(Namespace.DEFAULT, "User:legacy")))
        .contains(
            "TOPIC LITERAL p.ax.task.commands WRITE", "TOPIC LITERAL p.ax.task.completed READ");
  }

  @Test
  void refusesABlankGroupPrefixAndAPrincipalWithoutAType() {
    assertThatThrownBy(() -> TEMPLATE.tenant(A, "User:alice", " "))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> TEMPLATE.tenant(A, "alice"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("User:alice");
    assertThatThrownBy(() -> TEMPLATE.tenant(A, "User:"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void eachStageReadsAndWritesExactlyTheTopicsItsCodeUses() {
    assertThat(topics(Stage.INGEST, AclOperation.READ))
        .containsExactlyInAnyOrder("p.ax.task.commands", "p.ax.a.task.commands");
    assertThat(topics(Stage.INGEST, AclOperation.WRITE))
        .containsExactlyInAnyOrder(
            "p.ax.task.scheduled",
            "p.ax.task.dependencies",
            "p.ax.task.commands.rejected",
            "p.ax.a.task.commands.rejected");
    assertThat(topics(Stage.TICKER, AclOperation.READ))
        .containsExactlyInAnyOrder(
            "p.ax.task.scheduled", "p.ax.task.completed", "p.ax.a.task.completed");
    assertThat(topics(Stage.TICKER, AclOperation.WRITE))
        .containsExactlyInAnyOrder(
            "p.ax.task.due",
            "p.ax.task.scheduled",
            "p.ax.task.completed",
            "p.ax.task.deadletter",
            "p.ax.parked.ticker",
            "p.ax.a.task.completed");
    assertThat(topics(Stage.DISPATCHER, AclOperation.READ))
        .containsExactlyInAnyOrder(
            "p.ax.task.due", "p.ax.task.due.retry", "p.ax.task.dependencies");
    assertThat(topics(Stage.DISPATCHER, AclOperation.WRITE))
        .containsExactlyInAnyOrder(
            "p.ax.task.due",
            "p.ax.task.due.retry",
            "p.ax.task.completed",
            "p.ax.flow.succeeded",
            "p.ax.task.retry",
            "p.ax.task.deadletter",
            "p.ax.parked.dispatcher",
            "p.ax.a.task.completed");
    assertThat(topics(Stage.RETRY, AclOperation.READ)).containsExactly("p.ax.task.retry");
    assertThat(topics(Stage.RETRY, AclOperation.WRITE))
        .containsExactlyInAnyOrder("p.ax.task.due.retry", "p.ax.parked.retry");
    assertThat(topics(Stage.DEADLETTER, AclOperation.READ)).containsExactly("p.ax.task.deadletter");
    assertThat(topics(Stage.DEADLETTER, AclOperation.WRITE))
        .containsExactlyInAnyOrder("p.ax.parked.deadletter");
    assertThat(topics(Stage.RESOLVER, AclOperation.READ))
        .containsExactlyInAnyOrder(
            "p.ax.flow.succeeded", "p.ax.task.dependencies", "p.ax-resolver-");
    assertThat(topics(Stage.RESOLVER, AclOperation.WRITE))
        .containsExactlyInAnyOrder(
            "p.ax.task.commands", "p.ax.parked.resolver", "p.ax.a.task.commands", "p.ax-resolver-");
    assertThat(topics(Stage.API, AclOperation.READ)).isEmpty();
    assertThat(topics(Stage.API, AclOperation.WRITE))
        .containsExactlyInAnyOrder(
            "p.ax.task.commands", "p.ax.task.due.retry", "p.ax.a.task.commands");
    assertThat(topics(Stage.CLI_OPERATOR, AclOperation.WRITE))
        .containsExactlyInAnyOrder(
            "p.ax.task.commands",
            "p.ax.task.scheduled",
            "p.ax.task.due.retry",
            "p.ax.a.task.commands");
  }

  @Test
  void groupsAreTheStagesOwnAndOnlyTheResolverHasTransactionsAndInternalTopics() {
    assertThat(names(Stage.INGEST, ResourceType.GROUP))
        .containsExactly("GROUP LITERAL p.ax-ingest");
    assertThat(names(Stage.TICKER, ResourceType.GROUP))
        .containsExactly("GROUP LITERAL p.ax-ticker-chain");
    assertThat(names(Stage.DISPATCHER, ResourceType.GROUP))
        .containsExactly("GROUP LITERAL p.ax-dispatcher");
    assertThat(names(Stage.RETRY, ResourceType.GROUP)).containsExactly("GROUP LITERAL p.ax-retry");
    assertThat(names(Stage.DEADLETTER, ResourceType.GROUP))
        .containsExactly("GROUP LITERAL p.ax-deadletter");
    assertThat(names(Stage.RESOLVER, ResourceType.GROUP))
        .containsExactly("GROUP LITERAL p.ax-resolver");
    assertThat(names(Stage.API, ResourceType.GROUP)).isEmpty();
    assertThat(names(Stage.RESOLVER, ResourceType.TRANSACTIONAL_ID))
        .containsExactly("TRANSACTIONAL_ID PREFIXED p.ax-resolver-");
    for (Stage stage : Stage.values()) {
      List<AclBinding> bindings = TEMPLATE.stage(stage, "User:s", List.of(A));
      assertThat(bindings)
          .as(stage.id())
          .noneMatch(b -> b.pattern().resourceType() == ResourceType.CLUSTER);
      assertThat(bindings).as(stage.id()).noneMatch(b -> b.entry().operation() == AclOperation.ALL);
      if (stage != Stage.RESOLVER) {
        assertThat(bindings)
            .as(stage.id())
            .noneMatch(
                b ->
                    b.pattern().patternType() == PatternType.PREFIXED
                        || b.entry().operation() == AclOperation.CREATE);
      }
    }
  }

  @Test
  void stagesRunByAStageRuntimeDescribeEverySharedTopicAndNoOtherNamespacesTopic() {
    for (Stage stage : List.of(Stage.INGEST, Stage.TICKER, Stage.RETRY, Stage.RESOLVER)) {
      Set<String> described =
          TEMPLATE.stage(stage, "User:s", List.of(A)).stream()
              .filter(b -> b.entry().operation() == AclOperation.DESCRIBE)
              .map(b -> b.pattern().name())
              .collect(Collectors.toSet());
      assertThat(described).as(stage.id()).containsAll(TOPICS.all(1).keySet());
      assertThat(described).as(stage.id()).noneMatch(name -> name.contains(".b."));
    }
    assertThat(TEMPLATE.stageNamespace(Stage.RETRY, "User:s", A)).isEmpty();
  }

  @Test
  void namespacesAreAddedWithoutRepeats() {
    List<AclBinding> both =
        TEMPLATE.stage(Stage.INGEST, "User:i", List.of(A, B, Namespace.DEFAULT));
    assertThat(both).doesNotHaveDuplicates();
    assertThat(both).containsAll(TEMPLATE.stageShared(Stage.INGEST, "User:i"));
    assertThat(rendered(both))
        .contains(
            "TOPIC LITERAL p.ax.b.task.commands READ",
            "TOPIC LITERAL p.ax.b.task.commands.rejected WRITE");
  }

  @Test
  void printsOneKafkaAclsLinePerBindingWithPrefixesMarked() {
    List<String> lines = AclCommands.commandLines("broker:9092", TEMPLATE.tenant(A, "User:alice"));

    assertThat(lines).hasSize(7);
    assertThat(lines.get(0))
        .isEqualTo(
            "kafka-acls.sh --bootstrap-server broker:9092 --add --allow-principal User:alice"
                + " --operation Write --topic p.ax.a.task.commands");
    assertThat(lines)
        .contains(
            "kafka-acls.sh --bootstrap-server broker:9092 --add --allow-principal User:alice"
                + " --operation Read --group a. --resource-pattern-type prefixed");
    assertThat(AclCommands.commandLines("b:1", TEMPLATE.stageShared(Stage.RESOLVER, "User:r")))
        .contains(
            "kafka-acls.sh --bootstrap-server b:1 --add --allow-principal User:r"
                + " --operation Write --transactional-id p.ax-resolver- --resource-pattern-type"
                + " prefixed",
            "kafka-acls.sh --bootstrap-server b:1 --add --allow-principal User:r"
                + " --operation DescribeConfigs --topic p.ax-resolver- --resource-pattern-type"
                + " prefixed",
            "kafka-acls.sh --bootstrap-server b:1 --add --allow-principal User:r"
                + " --operation AlterConfigs --topic p.ax.task.dependencies");
    assertThat(AclCommands.operationName(AclOperation.IDEMPOTENT_WRITE))
        .isEqualTo("IdempotentWrite");
  }

  @Test
  void securityDocHoldsTheTableTheTemplateRenders() throws Exception {
    String table = AclCommands.markdownTable(new AclTemplate(new Topics("")), new Namespace("n"));
    assertThat(table).contains("| ingest | `ax.task.commands`, `ax.n.task.commands` |");
    assertThat(Files.readString(SECURITY_DOC))
        .as("docs/SECURITY.md holds the table AclCommands.markdownTable renders; paste it anew")
        .contains(table);
  }

  private static Set<String> topics(Stage stage, AclOperation operation) {
    return TEMPLATE.stage(stage, "User:s", List.of(A)).stream()
        .filter(b -> b.pattern().resourceType() == ResourceType.TOPIC)
        .filter(b -> b.entry().operation() == operation)
        .map(b -> b.pattern().name())
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private static List<String> names(Stage stage, ResourceType type) {
    return TEMPLATE.stage(stage, "User:s", List.of(A)).stream()
        .filter(b -> b.pattern().resourceType() == type)
        .map(b -> type + " " + b.pattern().patternType() + " " + b.pattern().name())
        .distinct()
        .toList();
  }

  private static List<String> rendered(List<AclBinding> bindings) {
    return bindings.stream()
        .map(
            b ->
                b.pattern().resourceType()
                    + " "
                    + b.pattern().patternType()
                    + " "
                    + b.pattern().name()
                    + " "
                    + b.entry().operation())
        .toList();
  }
}
