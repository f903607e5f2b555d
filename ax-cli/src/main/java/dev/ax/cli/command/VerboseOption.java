package dev.ax.cli.command;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The picocli mixin ({@code @Mixin VerboseOption}) of the commands that run the stages in this JVM
 * and print their own account of it ({@code ax demo}, {@code ax bench}): {@code -v/--verbose} shows
 * the stages' logs as well, otherwise they go quiet (or to a file). Set by picocli and then read by
 * the command, both on the main thread.
 */
public final class VerboseOption {

  @Option(
      names = {"-v", "--verbose"},
      description = "Show the stages' logs too.")
  private boolean verbose;

  /**
   * Sends the logs to {@code file} ({@link LogLevels#toFile}) unless {@code --verbose} was given.
   *
   * @return true when they go to the file
   */
  public boolean logsTo(Path file) {
    if (!verbose) {
      LogLevels.toFile(file);
    }
    return !verbose;
  }

  /** Quiets the stages' logs ({@link LogLevels#quiet()}) unless {@code --verbose} was given. */
  public void applyToLogs() {
    if (!verbose) {
      LogLevels.quiet();
    }
  }
}
