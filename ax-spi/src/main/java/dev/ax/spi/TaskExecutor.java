package dev.ax.spi;

/**
 * Runs one attempt of one instance. AX's built-in executors implement it, and so can users: an
 * in-process executor is a class implementing this interface, listed in {@code
 * META-INF/services/dev.ax.spi.TaskExecutor} of any jar on the dispatcher's class path, and named
 * by {@code executor.handler} in the task.
 *
 * <p>Implementations are called from many worker threads at once and must be thread-safe. They
 * should return a failed {@link ExecutionResult} for failures they understand and respond to
 * interruption promptly: on timeout the worker thread is interrupted.
 */
public interface TaskExecutor {

  /** The handler name tasks use to pick this executor, e.g. {@code noop}. */
  String name();

  /**
   * Runs the attempt.
   *
   * @throws InterruptedException if interrupted (the timeout fired); AX records TIMEOUT
   * @throws Exception for anything unexpected; AX records FAILED with its message
   */
  ExecutionResult execute(ExecutionContext context) throws Exception;

  /** Called after a successful attempt was recorded. Must not throw. */
  default void onSuccess(ExecutionContext context, ExecutionResult result) {}

  /** Called after a failed or timed-out attempt was recorded. Must not throw. */
  default void onFailure(ExecutionContext context, ExecutionResult result) {}
}
