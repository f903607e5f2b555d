package dev.ax.dispatcher.executor.shell;

/**
 * Whether what a task asks for may be used: the checked value, or the reason it is refused. A
 * refusal is an expected outcome (a task naming a script outside the directory, two params that map
 * to one variable), so it is a value, not an exception; the shell executor turns it into a
 * permanent failure before anything is started.
 */
public sealed interface Admission<T> {

  /** The request passed every check. */
  record Admitted<T>(T value) implements Admission<T> {}

  /**
   * The request cannot run as specified; retrying will not help.
   *
   * @param reason one line for the task's owner; never holds a param value
   */
  record Refused<T>(String reason) implements Admission<T> {

    /** The same refusal, typed for a caller that returns another kind of admission. */
    public <U> Refused<U> retyped() {
      return new Refused<>(reason);
    }
  }

  static <T> Admission<T> admitted(T value) {
    return new Admitted<>(value);
  }

  static <T> Admission<T> refused(String reason) {
    return new Refused<>(reason);
  }
}
