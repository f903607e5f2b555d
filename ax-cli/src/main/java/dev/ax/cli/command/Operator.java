package dev.ax.cli.command;

/**
 * Who runs an operator command ({@code ax dlq replay}, {@code ax dlq discard}, {@code ax switch}),
 * as its audit records name them: the operating-system user. Stateless.
 */
final class Operator {

  private Operator() {}

  static String name() {
    return System.getProperty("user.name", "unknown");
  }
}
