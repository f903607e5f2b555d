package dev.ax.cli.command;

import dev.ax.common.kafka.AclCommands;
import dev.ax.common.kafka.AclTemplate;
import dev.ax.common.kafka.Topics;
import dev.ax.common.model.Namespace;
import java.io.PrintWriter;

/**
 * The ACL grants a new namespace needs on a broker that authorizes, from {@link AclTemplate}, as
 * {@code kafka-acls.sh} lines: its tenant's, then each AX stage's on the namespace's topics (for
 * stages running as {@code User:ax-<stage>}). Stateless.
 */
final class NamespaceGrants {

  private NamespaceGrants() {}

  static void print(Topics topics, Namespace namespace, String tenant, PrintWriter out) {
    AclTemplate template = new AclTemplate(topics);
    out.println(
        "# the tenant " + tenant + ": send commands, read rejections and completion events");
    AclCommands.commandLines("<broker>", template.tenant(namespace, tenant)).forEach(out::println);
    out.println("# AX's stages on the namespace's topics (each stage's own principal)");
    for (AclTemplate.Stage stage : AclTemplate.Stage.values()) {
      AclCommands.commandLines(
              "<broker>", template.stageNamespace(stage, "User:ax-" + stage.id(), namespace))
          .forEach(out::println);
    }
  }
}
