package dev.ax.common.kafka;

/**
 * The outages in a row met by the batch a {@link ConsumerLoop} is trying, and from them how the
 * batch is tried next: whole again after the backoff, or one record at a time. A failure not from
 * an outage always sends the batch one record at a time (it may hold a poison record) and is not
 * counted; every {@code outagesBeforeSingles}th outage in a row does too, in case the batch as a
 * whole is what fails (a statement too large for the server reads as a broken connection).
 *
 * <p>Not thread-safe: the loop thread only.
 */
final class OutageStreak {

  private final int outagesBeforeSingles;
  private int inARow;

  OutageStreak(int outagesBeforeSingles) {
    if (outagesBeforeSingles < 1) {
      throw new IllegalArgumentException(
          "outagesBeforeSingles must be at least 1: " + outagesBeforeSingles);
    }
    this.outagesBeforeSingles = outagesBeforeSingles;
  }

  /**
   * Counts a failed try of the whole batch.
   *
   * @param outage whether the failure was an outage ({@link TransientFailures#isTransient})
   * @return true when the batch is to be tried one record at a time now
   */
  boolean oneAtATimeAfter(boolean outage) {
    if (outage) {
      inARow++;
    }
    return !outage || inARow % outagesBeforeSingles == 0;
  }

  /** Outages in a row so far. */
  int inARow() {
    return inARow;
  }

  /**
   * The batch is done (handled, or parked where it failed): the streak starts again.
   *
   * @return the outages in a row that came before
   */
  int end() {
    int was = inARow;
    inARow = 0;
    return was;
  }
}
