package dev.ax.cli.command;

import dev.ax.api.client.ApiClient;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * A subcommand of {@code ax dlq} or {@code ax task} that works on the database: it checks its
 * options first, so that a usage error comes before any connection, then runs on the database of
 * the work dir given to it or to its parent, opened under the parent's process name ({@link
 * CliDatabase#run}). Its {@code --help} and {@code --version} come from here too (picocli ORs
 * {@code mixinStandardHelpOptions} over the class hierarchy). Filled by picocli and run on the main
 * thread.
 */
@Command(mixinStandardHelpOptions = true)
abstract class DatabaseSubcommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @ParentCommand private DatabaseCommandGroup parent;

  @Override
  public final Integer call() throws Exception {
    checkOptions();
    Optional<ApiClient> api = ApiMode.client();
    if (api.isPresent()) {
      return runOnApi(api.get(), spec.commandLine().getOut());
    }
    return CliDatabase.run(spec, parent.workDir(), parent.processName(), this::run);
  }

  /**
   * Does the command's work through the API ({@code AX_API_URL}), printing the API's JSON; by
   * default it has no route there and refuses.
   */
  int runOnApi(ApiClient api, PrintWriter out) throws Exception {
    throw ApiMode.unsupported("ax " + spec.qualifiedName().replaceFirst("^\\S+ ", ""));
  }

  /**
   * Checks the options against each other before the database is opened; by default they need no
   * check.
   *
   * @throws picocli.CommandLine.ParameterException when they do not go together
   */
  void checkOptions() {}

  /** Does the command's work on {@code db}, printing to {@code out}; returns the exit code. */
  abstract int run(CliDatabase db, PrintWriter out) throws Exception;

  final WorkDirOptions workDir() {
    return parent.workDir();
  }

  final String processName() {
    return parent.processName();
  }
}
