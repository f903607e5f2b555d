package dev.ax.common.kafka;

import dev.ax.common.kafka.ConsumerLoop.BatchHandler;
import java.util.Collection;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partitions of a group member: the loop subscribes to its topics, and the group coordinator
 * hands partitions to it and takes them away. A partition taken away is first told to the handler,
 * then what was handled on it is committed ({@link OffsetCommits#commitHandOver}), so its next
 * owner starts after the last record handled here.
 *
 * <p>Not thread-safe: {@link #join} runs on the loop thread, and Kafka calls the rebalance listener
 * there too, inside a poll.
 */
record GroupAssignment(
    String loopName, Subscription topics, BatchHandler handler, OffsetCommits commits)
    implements PartitionAssignment {

  // The loop's logger: these lines are the loop's, and read as such where its level is set.
  private static final Logger log = LoggerFactory.getLogger(ConsumerLoop.class);

  @Override
  public void join(Consumer<String, byte[]> consumer) {
    topics.subscribe(
        consumer,
        new ConsumerRebalanceListener() {
          @Override
          public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            handler.onRevoked(partitions);
            commits.commitHandOver(partitions);
          }

          @Override
          public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            log.info("{} assigned {}", loopName, partitions);
            handler.onAssigned(partitions);
          }
        });
  }
}
