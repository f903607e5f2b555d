package dev.ax.cli.command;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * A command line mistake prints the mistake, picocli's "did you mean" suggestions if any, and where
 * to find the help, rather than the whole help text. Exit code {@link ExitCodes#BAD_CONFIG}
 * (picocli's usage code). Stateless.
 */
public final class ShortUsageErrors implements IParameterExceptionHandler {

  @Override
  public int handleParseException(ParameterException exception, String[] args) {
    CommandLine commandLine = exception.getCommandLine();
    PrintWriter err = commandLine.getErr();
    err.println(commandLine.getColorScheme().errorText(exception.getMessage()));
    UnmatchedArgumentException.printSuggestions(exception, err);
    err.println(
        "Try '" + commandLine.getCommandSpec().qualifiedName() + " --help' for more information.");
    err.flush();
    return ExitCodes.BAD_CONFIG;
  }
}
