package dev.ax.dispatcher.executor.shell;

import dev.ax.common.model.ExecutorSpec;
import dev.ax.dispatcher.executor.AttemptContext;
import dev.ax.spi.ExecutionContext;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a SHELL attempt may start: the argument vector {@code [realPath(directory/script), args...]}
 * (never a shell string), only for a script {@link ScriptDirectory} confines to the configured
 * directory, with the environment built from nothing by {@link ScriptEnvironment}, the script
 * directory as working directory and {@code /dev/null} as stdin. Anything that fails those checks
 * is refused and nothing is started.
 *
 * <p>Thread-safe: immutable.
 */
public final class ScriptCommand {

  private static final File NO_INPUT = new File("/dev/null");

  private final ScriptDirectory directory;

  /**
   * @param scriptDirectory the only directory scripts run from; must exist
   * @throws IllegalArgumentException if it does not
   */
  public ScriptCommand(Path scriptDirectory) {
    this.directory = new ScriptDirectory(scriptDirectory);
  }

  /** The process to start, or why the task may not run. Starts nothing. */
  public Admission<ProcessBuilder> prepare(ExecutionContext context) throws IOException {
    ExecutorSpec.Shell spec = (ExecutorSpec.Shell) AttemptContext.of(context).task().executor();
    Admission<ScriptDirectory.Script> script = directory.resolve(spec.script());
    if (script instanceof Admission.Refused<ScriptDirectory.Script> refused) {
      return refused.retyped();
    }
    ScriptDirectory.Script found = ((Admission.Admitted<ScriptDirectory.Script>) script).value();
    List<String> command = new ArrayList<>(1 + spec.args().size());
    command.add(found.file().toString());
    for (int i = 0; i < spec.args().size(); i++) {
      String arg = spec.args().get(i);
      if (arg == null || arg.indexOf('\0') >= 0) {
        // The JDK would refuse it at start, with the argument in the message.
        return Admission.refused(
            "argument " + (i + 1) + " is null or contains a NUL character, which exec cannot pass");
      }
      command.add(arg);
    }
    Admission<Map<String, String>> environment = ScriptEnvironment.forAttempt(context);
    if (environment instanceof Admission.Refused<Map<String, String>> refused) {
      return refused.retyped();
    }
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(found.directory().toFile())
            .redirectInput(ProcessBuilder.Redirect.from(NO_INPUT));
    Map<String, String> env = builder.environment();
    env.clear(); // starts as a copy of the dispatcher's environment, which holds its secrets
    env.putAll(((Admission.Admitted<Map<String, String>>) environment).value());
    return Admission.admitted(builder);
  }

  @Override
  public String toString() {
    return directory.toString();
  }
}
