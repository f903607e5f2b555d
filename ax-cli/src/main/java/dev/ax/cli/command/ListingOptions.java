package dev.ax.cli.command;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code --limit} and {@code --json} of the commands that list rows ({@code ax task list}, {@code
 * ax audit}): how many at most, and a JSON array instead of a table. Filled by picocli on the main
 * thread.
 */
final class ListingOptions {

  /** The most rows one listing returns, whatever is asked. */
  static final int MAX_LIMIT = 10_000;

  @Option(
      names = "--limit",
      defaultValue = "50",
      paramLabel = "<n>",
      description = "At most this many (default: ${DEFAULT-VALUE}).")
  int limit;

  @Option(names = "--json", description = "A JSON array, for scripts.")
  boolean json;

  /**
   * @throws ParameterException when {@code --limit} is outside 1..{@value #MAX_LIMIT}
   */
  void check(CommandSpec spec) {
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new ParameterException(
          spec.commandLine(), "--limit must be in 1.." + MAX_LIMIT + ": " + limit);
    }
  }
}
