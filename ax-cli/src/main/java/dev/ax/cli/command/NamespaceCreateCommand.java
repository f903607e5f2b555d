package dev.ax.cli.command;

import dev.ax.api.audit.OperatorLog;
import dev.ax.api.write.NamespaceCreation;
import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.kafka.Topics;
import dev.ax.common.model.Namespace;
import dev.ax.common.store.NamespaceStore;
import java.io.PrintWriter;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * {@code ax namespace create <name>}: creates the namespace's topics and records it, so ingest
 * reads its commands; then prints the ACL grants the operator gives its tenant (and AX's stages) on
 * a broker that authorizes.
 */
@Command(
    name = "create",
    description = {
      "Create a namespace: its topics ax.<name>.task.commands, .task.commands.rejected and"
          + " .task.completed, and its record; ingest reads its commands within seconds.",
      "Prints the Kafka ACL grants for the namespace's tenant and for AX's stages."
    })
final class NamespaceCreateCommand extends DatabaseSubcommand {

  @Parameters(index = "0", paramLabel = "<name>", description = "a-z, 0-9 and -, 1..31 long")
  private String name;

  @Option(
      names = "--tenant",
      paramLabel = "<principal>",
      defaultValue = "User:<tenant>",
      description = "The Kafka principal the printed grants name (default: ${DEFAULT-VALUE}).")
  private String tenant;

  @Option(
      names = "--reason",
      paramLabel = "<text>",
      description = "Why; kept in the audit log with the change.")
  private String reason;

  private Namespace namespace;

  @Override
  void checkOptions() {
    namespace =
        Namespace.parse(name)
            .orElseThrow(
                () ->
                    new ParameterException(
                        spec.commandLine(),
                        "a namespace name must match " + Namespace.NAME.pattern() + ": " + name));
    if (namespace.isDefault()) {
      throw new ParameterException(spec.commandLine(), "the default namespace always exists");
    }
  }

  @Override
  int run(CliDatabase db, PrintWriter out) throws Exception {
    BrokerLocator.Target broker = workDir().locateBroker(db.config);
    Topics topics = new Topics(broker.topicPrefix());
    NamespaceCreation.Created created;
    try (Admin admin = KafkaClients.admin(broker.kafka())) {
      created =
          new NamespaceCreation(
                  admin,
                  topics,
                  new NamespaceStore(db.dataSource),
                  new OperatorLog(db.dataSource),
                  db.clock::millis)
              .create(
                  namespace, Operator.name(), reason == null ? "by ax namespace create" : reason);
    } catch (IllegalStateException e) {
      throw new CliFailure(ExitCodes.FAILED, e.getMessage() + ". " + broker.hint());
    }
    out.println(
        "namespace "
            + namespace
            + (created.recorded() ? " created" : " exists already")
            + (created.topicsCreated().isEmpty()
                ? ""
                : "; topics created: " + String.join(", ", created.topicsCreated())));
    out.println("Its producers send to " + topics.commands(namespace) + ", key = taskId.");
    out.println();
    out.println("On a broker with an authorizer, grant (kafka-acls.sh):");
    NamespaceGrants.print(topics, namespace, tenant, out);
    return ExitCodes.OK;
  }
}
