package dev.ax.dispatcher.executor;

import dev.ax.common.model.ExecutorSpec;
import dev.ax.spi.TaskExecutor;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the executor for a task: the HTTP executor for HTTP tasks, and for IN_PROCESS tasks the
 * {@link TaskExecutor} whose {@link TaskExecutor#name()} is the task's handler, found through
 * {@link ServiceLoader} once at start. Immutable after construction; thread-safe. {@link #close()}
 * closes the built-in executors that hold resources (the HTTP executor's connection pool).
 */
public final class ExecutorRegistry implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ExecutorRegistry.class);

  private final TaskExecutor http;
  private final Optional<TaskExecutor> shell;
  private final Map<String, TaskExecutor> inProcess;

  public ExecutorRegistry(TaskExecutor http, Map<String, TaskExecutor> inProcess) {
    this(http, Optional.empty(), inProcess);
  }

  /**
   * @param shell the shell executor, empty when no script directory is configured
   */
  public ExecutorRegistry(
      TaskExecutor http, Optional<TaskExecutor> shell, Map<String, TaskExecutor> inProcess) {
    this.http = http;
    this.shell = shell;
    this.inProcess = Map.copyOf(inProcess);
  }

  /** The HTTP executor plus every in-process executor on the class path. */
  public static ExecutorRegistry discover(
      TaskExecutor http, Optional<TaskExecutor> shell, ClassLoader classLoader) {
    Map<String, TaskExecutor> found = new HashMap<>();
    for (TaskExecutor executor : ServiceLoader.load(TaskExecutor.class, classLoader)) {
      TaskExecutor previous = found.putIfAbsent(executor.name(), executor);
      if (previous != null) {
        throw new IllegalStateException(
            "two in-process executors are named '"
                + executor.name()
                + "': "
                + previous.getClass().getName()
                + " and "
                + executor.getClass().getName());
      }
    }
    log.info("In-process executors: {}", found.keySet());
    return new ExecutorRegistry(http, shell, found);
  }

  /** The executor for {@code spec}, or empty when none is installed for it. */
  public Optional<TaskExecutor> find(ExecutorSpec spec) {
    if (spec instanceof ExecutorSpec.InProcess named) {
      return Optional.ofNullable(inProcess.get(named.handler()));
    }
    return spec instanceof ExecutorSpec.Http ? Optional.of(http) : shell;
  }

  /**
   * Closes the HTTP and shell executors where they hold resources; in-process executors are their
   * authors' to manage. Logs, never throws.
   */
  @Override
  public void close() {
    closeQuietly(http);
    shell.ifPresent(ExecutorRegistry::closeQuietly);
  }

  private static void closeQuietly(TaskExecutor executor) {
    if (executor instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        log.warn("Could not close the {} executor: {}", executor.name(), e.toString());
      }
    }
  }
}
