package dev.ax.cli.command;

import dev.ax.common.kafka.Topics;
import dev.ax.common.model.Namespace;
import java.io.PrintWriter;

/** The ACL grants a new namespace needs, printed as {@code kafka-acls.sh} lines. Stateless. */
final class NamespaceGrants {

  private NamespaceGrants() {}

  static void print(Topics topics, Namespace namespace, String tenant, PrintWriter out) {
    String add = "kafka-acls.sh --bootstrap-server <broker> --add ";
    out.println("# the tenant: send commands, read its rejections and completion events");
    out.println(
        add
            + "--allow-principal "
            + tenant
            + " --operation Write --operation Describe --topic "
            + topics.commands(namespace));
    out.println(
        add
            + "--allow-principal "
            + tenant
            + " --operation Read --operation Describe --topic "
            + topics.completed(namespace)
            + " --topic "
            + topics.commandsRejected(namespace));
    out.println(
        add
            + "--allow-principal "
            + tenant
            + " --operation Read --group "
            + namespace.name()
            + ". --resource-pattern-type prefixed");
  }
}
