package dev.ax.common.kafka;

/**
 * Hears what becomes of a {@link ConsumerLoop} that cannot go on as it should, so that whoever runs
 * the process can say so on its readiness probe and end the process rather than let a stage sit
 * there reading nothing. The loop logs each event itself; a watcher decides what the process does.
 *
 * <p>Implementations must be thread-safe: each loop calls from its own thread.
 */
public interface LoopWatcher {

  /**
   * The broker refuses the loop (an authorization or authentication error, e.g. during an ACL
   * change): the loop is alive, reads nothing, and tries again after a bounded back-off.
   *
   * @param reason one line, for the readiness probe
   */
  void refused(String loop, String reason);

  /** The loop reads again after {@link #refused}. */
  void recovered(String loop);

  /**
   * The loop's thread ended for a reason other than {@link ConsumerLoop#close()}: the loop reads
   * nothing more, ever.
   */
  void died(String loop, Throwable cause);

  /** A watcher that does nothing beyond the loop's own log lines: for tests and tools. */
  LoopWatcher LOG_ONLY =
      new LoopWatcher() {
        @Override
        public void refused(String loop, String reason) {}

        @Override
        public void recovered(String loop) {}

        @Override
        public void died(String loop, Throwable cause) {}
      };
}
