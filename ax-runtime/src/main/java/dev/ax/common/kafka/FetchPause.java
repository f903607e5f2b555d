package dev.ax.common.kafka;

import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * Back-pressure on a consumer: while the caller says so, every assigned partition is paused before
 * each poll, and resumed once it says so no longer. The group keeps its member and offsets; records
 * wait in Kafka. Pauses again on every call, not only on the change: partitions handed over by a
 * rebalance arrive unpaused.
 *
 * <p>Threading: the consumer loop's thread only (from {@link
 * ConsumerLoop.BatchHandler#beforePoll}).
 */
public final class FetchPause {

  /** What one {@link #apply} changed, for the caller to log. */
  public enum Change {
    NONE,
    PAUSED,
    RESUMED
  }

  private boolean paused;

  /**
   * Pauses every assigned partition when {@code pause}, else resumes the paused ones if this paused
   * them.
   *
   * @return {@link Change#PAUSED} or {@link Change#RESUMED} on the call that changed the state,
   *     {@link Change#NONE} otherwise
   */
  public Change apply(KafkaConsumer<?, ?> consumer, boolean pause) {
    if (pause) {
      consumer.pause(consumer.assignment());
      if (paused) {
        return Change.NONE;
      }
      paused = true;
      return Change.PAUSED;
    }
    if (!paused) {
      return Change.NONE;
    }
    consumer.resume(consumer.paused());
    paused = false;
    return Change.RESUMED;
  }
}
