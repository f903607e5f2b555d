package dev.ax.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;

/**
 * A metered client exports its metrics, tagged by its client id, from its construction and takes
 * them away when it is closed (no broker needed: neither client connects before it is used).
 */
class MeteredClientsTest {

  private static final KafkaConnection NOWHERE = KafkaConnection.plaintext("127.0.0.1:1");

  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

  private long metersOf(String clientId) {
    return meters.getMeters().stream()
        .map(Meter::getId)
        .filter(id -> clientId.equals(id.getTag("client.id")))
        .count();
  }

  @Test
  void aProducersMetersLiveAsLongAsTheProducer() {
    KafkaProducer<String, byte[]> producer = KafkaClients.producer(NOWHERE, "p-1", meters);
    assertThat(metersOf("p-1")).as("meters while open").isPositive();
    assertThat(meters.find("kafka.producer.record.send.total").tag("client.id", "p-1").meter())
        .isNotNull();

    producer.close(Duration.ZERO);

    assertThat(metersOf("p-1")).as("meters after close").isZero();
  }

  @Test
  void aProducerClosedWithoutATimeoutDropsItsMetersToo() {
    KafkaProducer<String, byte[]> producer = KafkaClients.producer(NOWHERE, "p-4", meters);
    assertThat(metersOf("p-4")).as("meters while open").isPositive();

    producer.close(); // goes through close(Duration), which MeteredClients overrides

    assertThat(metersOf("p-4")).as("meters after close").isZero();
  }

  @Test
  void aProducerWithABoundedBlockHasItsMaxBlockSetAndTheOtherSettingsKept() {
    var props = KafkaClients.producerProperties(NOWHERE, "p-2", Duration.ofMillis(2_500));

    assertThat(props.get("max.block.ms")).isEqualTo("2500");
    assertThat(props.get("acks")).as("the usual settings kept").isEqualTo("all");
    assertThat(KafkaClients.producerProperties(NOWHERE, "p-3").get("max.block.ms"))
        .as("unset by default: Kafka's 60 s")
        .isNull();
  }

  @Test
  void aConsumersMetersLiveAsLongAsTheConsumerWhicheverCloseIsCalled() {
    KafkaConsumer<String, byte[]> consumer = KafkaClients.consumer(NOWHERE, "g", "c-1", 10, meters);
    assertThat(meters.find("kafka.consumer.fetch.manager.records.lag.max").meters())
        .as("the consumer lag gauge")
        .isNotEmpty();

    consumer.close(Duration.ZERO);

    assertThat(metersOf("c-1")).isZero();
  }
}
