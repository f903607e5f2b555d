package dev.ax.cli.command;

import picocli.CommandLine.Command;

/**
 * {@code ax namespace}: {@code create} a namespace (its topics and its record, with the ACL
 * template for the operator to grant) and {@code list} them. Talks to the database and the broker
 * as {@code ax dlq replay} does. Each subcommand runs on the main thread.
 */
@Command(
    name = "namespace",
    description = "Namespaces (tenants): create, list.",
    subcommands = {NamespaceCreateCommand.class, NamespaceListCommand.class})
public final class NamespaceCommand extends DatabaseCommandGroup {

  static final String PROCESS_NAME = "ax-namespace";

  public NamespaceCommand() {
    super(PROCESS_NAME, "create, list");
  }
}
