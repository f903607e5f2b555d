package dev.ax.common.kafka;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The offsets of a polled batch a {@link ConsumerLoop} needs: where each partition's records start
 * (to try the batch again) and the offset after each partition's last record (to commit it).
 *
 * <p>Stateless; {@link #rewind} touches the consumer, so it runs on the loop thread only.
 */
final class BatchOffsets {

  private BatchOffsets() {}

  /** Each partition of {@code records} with the offset of its first record. */
  static Map<TopicPartition, Long> first(ConsumerRecords<String, byte[]> records) {
    Map<TopicPartition, Long> offsets = new HashMap<>();
    for (TopicPartition partition : records.partitions()) {
      offsets.put(partition, records.records(partition).get(0).offset());
    }
    return offsets;
  }

  /** Each partition of {@code records} with the offset after its last record: what to commit. */
  static Map<TopicPartition, OffsetAndMetadata> next(ConsumerRecords<String, byte[]> records) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    for (TopicPartition partition : records.partitions()) {
      var list = records.records(partition);
      ConsumerRecord<String, byte[]> last = list.get(list.size() - 1);
      offsets.put(partition, new OffsetAndMetadata(last.offset() + 1));
    }
    return offsets;
  }

  /** Seeks each partition still assigned to its offset; a revoked one is someone else's now. */
  static void rewind(Consumer<String, byte[]> consumer, Map<TopicPartition, Long> offsets) {
    var assigned = consumer.assignment();
    offsets.forEach(
        (partition, offset) -> {
          if (assigned.contains(partition)) {
            consumer.seek(partition, offset);
          }
        });
  }
}
