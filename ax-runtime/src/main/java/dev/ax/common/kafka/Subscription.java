package dev.ax.common.kafka;

import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;

/**
 * What a group member reads: a fixed list of topics, or every topic whose name matches a pattern
 * (ingest reads every namespace's commands topic that way, a namespace created later included).
 * Immutable.
 */
public sealed interface Subscription {

  /** Subscribes {@code consumer}, telling {@code listener} of every rebalance. */
  void subscribe(Consumer<String, byte[]> consumer, ConsumerRebalanceListener listener);

  static Subscription of(Collection<String> topics) {
    return new Named(List.copyOf(topics));
  }

  static Subscription matching(Pattern pattern) {
    return new Matching(pattern);
  }

  /** The topics named. */
  record Named(List<String> topics) implements Subscription {
    @Override
    public void subscribe(Consumer<String, byte[]> consumer, ConsumerRebalanceListener listener) {
      consumer.subscribe(topics, listener);
    }
  }

  /** Every topic matching, found again at each metadata refresh ({@code metadata.max.age.ms}). */
  record Matching(Pattern pattern) implements Subscription {
    public Matching {
      Objects.requireNonNull(pattern, "pattern");
    }

    @Override
    public void subscribe(Consumer<String, byte[]> consumer, ConsumerRebalanceListener listener) {
      consumer.subscribe(pattern, listener);
    }
  }
}
