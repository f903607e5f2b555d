package dev.ax.cli.command;

import dev.ax.common.config.ConfigException;
import java.io.PrintWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

/**
 * Turns an exception that escaped a command into a message on stderr and an exit code: a bad
 * configuration exits {@link ExitCodes#BAD_CONFIG} with the key and value the message names; a
 * {@link CliFailure} exits with its own code; anything else exits {@link ExitCodes#FAILED} with the
 * chain of causes, one line each (the stack trace goes to the log at DEBUG). Stateless.
 */
public final class CliErrorHandler implements IExecutionExceptionHandler {

  private static final Logger log = LoggerFactory.getLogger(CliErrorHandler.class);

  @Override
  public int handleExecutionException(
      Exception exception, CommandLine commandLine, ParseResult parseResult) {
    String command = commandLine.getCommandSpec().qualifiedName();
    PrintWriter err = commandLine.getErr();
    if (exception instanceof ConfigException) {
      err.println(command + ": " + exception.getMessage());
      err.flush();
      return ExitCodes.BAD_CONFIG;
    }
    if (exception instanceof CliFailure failure) {
      err.println(command + ": " + failure.getMessage());
      err.flush();
      return failure.exitCode();
    }
    err.println(command + " failed: " + exception);
    for (Throwable cause = exception.getCause(); cause != null; cause = cause.getCause()) {
      err.println("  caused by: " + cause);
    }
    err.flush();
    log.debug("{} failed", command, exception);
    return ExitCodes.FAILED;
  }
}
