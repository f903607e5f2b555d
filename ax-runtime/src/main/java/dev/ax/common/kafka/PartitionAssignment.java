package dev.ax.common.kafka;

import org.apache.kafka.clients.consumer.Consumer;

/**
 * How a {@link ConsumerLoop} comes by its partitions: as a member of a consumer group ({@link
 * GroupAssignment}), or by taking every partition itself, from the end ({@link FromEndAssignment}).
 * Each step says the thread it runs on.
 */
sealed interface PartitionAssignment permits GroupAssignment, FromEndAssignment {

  /** On the thread that calls {@link ConsumerLoop#start()}, before the loop thread starts. */
  default void beforeStart(Consumer<String, byte[]> consumer) {}

  /** On the loop thread, once, before its first poll. */
  default void join(Consumer<String, byte[]> consumer) {}

  /**
   * On the loop thread, before each poll.
   *
   * @return false when the consumer has nothing to poll yet (its partitions are not taken): the
   *     loop waits its retry backoff and asks again
   */
  default boolean beforePoll(Consumer<String, byte[]> consumer) {
    return true;
  }
}
