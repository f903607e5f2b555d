package dev.ax.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.kafka.KafkaConnection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The dispatcher's producer blocks a caller at most {@link DispatcherStage#PRODUCER_MAX_BLOCK}, not
 * Kafka's default minute: with no broker to give a topic's metadata, a send gives up within it.
 */
class DispatcherProducerTest {

  @Test
  void aSendWithNoBrokerGivesUpWithinTheBoundNotAfterAMinute() throws Exception {
    try (KafkaProducer<String, byte[]> producer =
        DispatcherStage.producer(
            KafkaConnection.plaintext("127.0.0.1:1"), "bounded", new SimpleMeterRegistry())) {
      CompletableFuture<Exception> failure = new CompletableFuture<>();

      CompletableFuture.runAsync(
          () -> {
            try {
              producer.send(
                  new ProducerRecord<>("ax.task.completed", "k", new byte[1]),
                  (metadata, error) -> failure.complete(error));
            } catch (RuntimeException e) {
              failure.complete(e);
            }
          });

      Exception error = failure.get(20, TimeUnit.SECONDS);
      assertThat(error)
          .as("given up within the test's 20 s, not after Kafka's default minute")
          .isInstanceOf(TimeoutException.class);
    }
  }
}
