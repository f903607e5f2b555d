package dev.ax.common.kafka;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * Kafka clients that export their own metrics (Micrometer's {@link KafkaClientMetrics}: {@code
 * kafka_consumer_*}, among them {@code kafka_consumer_fetch_manager_records_lag_max}, the lag of
 * the consumer's group on its partitions, and {@code kafka_producer_*}, tagged by {@code
 * client_id}) for as long as they are open: closing the client closes its binder, which removes its
 * meters and stops the binder's refresh thread, so a stage restarted in one process neither keeps a
 * dead client's series nor gains a thread.
 *
 * <p>Thread-safety: as the Kafka client it extends.
 */
final class MeteredClients {

  private MeteredClients() {}

  static KafkaProducer<String, byte[]> producer(Properties props, MeterRegistry meters) {
    Producer producer = new Producer(props);
    producer.metrics.bindTo(meters);
    return producer;
  }

  static KafkaConsumer<String, byte[]> consumer(Properties props, MeterRegistry meters) {
    Consumer consumer = new Consumer(props);
    consumer.metrics.bindTo(meters);
    return consumer;
  }

  /**
   * Closes the client, then its binder (also when the client's close throws), which removes its
   * meters. Every close overload that does not go through another does this.
   */
  private static void closeThenUnbind(Runnable closeClient, KafkaClientMetrics metrics) {
    try {
      closeClient.run();
    } finally {
      metrics.close();
    }
  }

  /**
   * {@link KafkaProducer#close()} is {@code close(Duration)} with no limit (Kafka's own code,
   * checked by MeteredClientsTest): overriding the one overload unbinds after either.
   */
  private static final class Producer extends KafkaProducer<String, byte[]> {
    private final KafkaClientMetrics metrics = new KafkaClientMetrics(this);

    Producer(Properties props) {
      super(props);
    }

    @Override
    public void close(Duration timeout) {
      closeThenUnbind(() -> super.close(timeout), metrics);
    }
  }

  /** Each of {@link KafkaConsumer}'s close overloads goes to its delegate, not to one another. */
  private static final class Consumer extends KafkaConsumer<String, byte[]> {
    private final KafkaClientMetrics metrics = new KafkaClientMetrics(this);

    Consumer(Properties props) {
      super(props);
    }

    @Override
    public void close() {
      closeThenUnbind(super::close, metrics);
    }

    @Override
    public void close(Duration timeout) {
      closeThenUnbind(() -> super.close(timeout), metrics);
    }

    @Override
    public void close(CloseOptions options) {
      closeThenUnbind(() -> super.close(options), metrics);
    }
  }
}
