package dev.ax.cli.command;

/**
 * A failure to report to the user as one line, without a stack trace, with the exit code to end
 * with. For expected failures the user can fix (nothing to send to, another {@code ax up} holds the
 * work directory).
 */
public final class CliFailure extends RuntimeException {

  private final int exitCode;

  public CliFailure(int exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }

  public int exitCode() {
    return exitCode;
  }
}
