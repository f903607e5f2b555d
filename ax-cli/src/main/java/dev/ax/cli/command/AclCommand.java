package dev.ax.cli.command;

import dev.ax.cli.local.ConfigCheck;
import dev.ax.common.config.CommonConfig;
import dev.ax.common.kafka.AclCommands;
import dev.ax.common.kafka.AclTemplate;
import dev.ax.common.kafka.AclTemplate.Stage;
import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.kafka.TopicProvisioner;
import dev.ax.common.kafka.Topics;
import dev.ax.common.model.Namespace;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AclBinding;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code ax acl}: the Kafka ACLs every AX stage needs on a broker that denies what no ACL allows
 * ({@link AclTemplate}), each stage as its own principal {@code <prefix><stage>}: printed as {@code
 * kafka-acls.sh} lines, or with {@code --apply} created through the Admin API on the broker the
 * command finds ({@link BrokerLocator}), after the shared topics that are missing (no stage may
 * create them). The deployments' one-shot ACL service runs {@code ax acl --apply} as the broker's
 * admin before the stages start. Filled by picocli and run on the main thread.
 */
@Command(
    name = "acl",
    description = {
      "Print the Kafka ACL grants of every AX stage (each as its own principal, User:ax-<stage>"
          + " by default), for the shared topics and the namespaces given, as kafka-acls.sh lines.",
      "With --apply: create the missing shared topics, then the grants, through the Kafka Admin"
          + " API on the broker of AX_KAFKA_BOOTSTRAP (or of a running `ax up`), as the principal"
          + " AX_KAFKA_* configure (a super user, or one allowed to alter the cluster's ACLs)."
    })
public final class AclCommand extends WorkDirCommand {

  /** How long the Admin API calls of --apply may take. */
  static final long APPLY_TIMEOUT_SECONDS = 60;

  @Option(
      names = "--stage",
      paramLabel = "<id>",
      description = "Only this stage: ${COMPLETION-CANDIDATES} (repeatable; default: every stage).",
      completionCandidates = StageIds.class)
  private List<String> stageIds = new ArrayList<>();

  @Option(
      names = "--namespace",
      paramLabel = "<name>",
      description = "Also the grants on this namespace's topics (repeatable).")
  private List<String> namespaceNames = new ArrayList<>();

  @Option(
      names = "--principal-prefix",
      paramLabel = "<prefix>",
      defaultValue = "User:ax-",
      description = "A stage's principal is this followed by its id (default: ${DEFAULT-VALUE}).")
  private String principalPrefix;

  @Option(
      names = "--bootstrap",
      paramLabel = "<servers>",
      description =
          "The --bootstrap-server of the printed lines (default: AX_KAFKA_BOOTSTRAP, else"
              + " <broker>).")
  private String bootstrap;

  @Option(
      names = "--apply",
      description = "Create the missing shared topics and the grants on the broker instead.")
  private boolean apply;

  /** The stage ids picocli offers. */
  static final class StageIds extends ArrayList<String> {
    private static final long serialVersionUID = 1L;

    StageIds() {
      super(Arrays.stream(Stage.values()).map(Stage::id).toList());
    }
  }

  @Override
  public Integer call() throws Exception {
    List<Stage> stages = stages();
    List<Namespace> namespaces = namespaces();
    if (principalPrefix.indexOf(':') <= 0 || principalPrefix.contains(" ")) {
      throw new ParameterException(
          spec.commandLine(),
          "--principal-prefix is '<type>:<start of name>', e.g. User:ax-: " + principalPrefix);
    }
    CommonConfig config = ConfigCheck.commonFromEnvironment();
    PrintWriter out = spec.commandLine().getOut();
    if (apply) {
      return apply(config, stages, namespaces, out);
    }
    String servers = bootstrap;
    if (servers == null || servers.isBlank()) {
      servers = config.kafkaBootstrap().isBlank() ? "<broker>" : config.kafkaBootstrap();
    }
    AclTemplate template = new AclTemplate(new Topics(config.topicPrefix()));
    for (Map.Entry<Stage, List<AclBinding>> entry :
        bindings(template, stages, namespaces).entrySet()) {
      out.println("# " + entry.getKey().id() + " as " + principal(entry.getKey()));
      AclCommands.commandLines(servers, entry.getValue()).forEach(out::println);
    }
    return ExitCodes.OK;
  }

  private int apply(
      CommonConfig config, List<Stage> stages, List<Namespace> namespaces, PrintWriter out) {
    LogLevels.quiet();
    BrokerLocator.Target broker = workDir.locateBroker(config);
    Topics topics = new Topics(broker.topicPrefix());
    Map<Stage, List<AclBinding>> bindings = bindings(new AclTemplate(topics), stages, namespaces);
    List<AclBinding> all = bindings.values().stream().flatMap(List::stream).distinct().toList();
    try {
      TopicProvisioner.ensure(
          broker.kafka(), topics.all(config.topicPartitions()), (short) config.topicReplication());
      try (Admin admin = KafkaClients.admin(broker.kafka())) {
        admin.createAcls(all).all().get(APPLY_TIMEOUT_SECONDS, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliFailure(ExitCodes.INTERRUPTED, "interrupted while creating the ACLs");
    } catch (ExecutionException | TimeoutException | IllegalStateException e) {
      String cause = e instanceof ExecutionException ? String.valueOf(e.getCause()) : e.toString();
      throw new CliFailure(
          ExitCodes.FAILED,
          "cannot create the topics or ACLs on "
              + broker.bootstrapServers()
              + ": "
              + cause
              + ". "
              + broker.hint());
    }
    out.println(
        "applied "
            + all.size()
            + " ACL bindings on "
            + broker.bootstrapServers()
            + " for "
            + bindings.keySet().stream()
                .map(s -> s.id() + " (" + principal(s) + ")")
                .collect(Collectors.joining(", ")));
    return ExitCodes.OK;
  }

  private Map<Stage, List<AclBinding>> bindings(
      AclTemplate template, List<Stage> stages, List<Namespace> namespaces) {
    Map<Stage, List<AclBinding>> bindings = new LinkedHashMap<>();
    for (Stage stage : stages) {
      bindings.put(stage, template.stage(stage, principal(stage), namespaces));
    }
    return bindings;
  }

  private String principal(Stage stage) {
    return principalPrefix + stage.id();
  }

  private List<Stage> stages() {
    if (stageIds.isEmpty()) {
      return List.of(Stage.values());
    }
    List<Stage> stages = new ArrayList<>();
    for (String id : stageIds) {
      Stage stage =
          Arrays.stream(Stage.values())
              .filter(s -> s.id().equals(id))
              .findFirst()
              .orElseThrow(
                  () ->
                      new ParameterException(
                          spec.commandLine(),
                          "--stage must be one of "
                              + String.join(", ", new StageIds())
                              + ": "
                              + id));
      if (!stages.contains(stage)) {
        stages.add(stage);
      }
    }
    return stages;
  }

  private List<Namespace> namespaces() {
    List<Namespace> namespaces = new ArrayList<>();
    for (String name : namespaceNames) {
      Namespace namespace =
          Namespace.parse(name)
              .orElseThrow(
                  () ->
                      new ParameterException(
                          spec.commandLine(),
                          "a namespace name must match " + Namespace.NAME.pattern() + ": " + name));
      if (!namespaces.contains(namespace)) {
        namespaces.add(namespace);
      }
    }
    return namespaces;
  }
}
