package dev.ax.embedded;

/**
 * One of the tests' shared servers in use: its address, where it comes from (for the log) and how
 * to stop it, which does nothing for an external server. Immutable; {@link #close()} is as
 * thread-safe as {@code stop}.
 *
 * @param address the broker's bootstrap servers, or the database's {@link DatabaseServer}
 * @param origin e.g. {@code "embedded"}, {@code "external"} or {@code "container mysql:8.4"}
 * @param stop stops the server
 */
record RunningServer<A>(A address, String origin, Runnable stop) implements AutoCloseable {

  /** A server this JVM did not start and does not stop. */
  static <A> RunningServer<A> external(A address) {
    return new RunningServer<>(address, "external", () -> {});
  }

  @Override
  public void close() {
    stop.run();
  }
}
