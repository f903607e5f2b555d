package dev.ax.ticker.fire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.store.DueInstance;
import java.util.List;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** What the emitter does with due events the broker refused: sends them again, a few times. */
class DueEmitterTest {

  private final MockProducer<String, byte[]> producer =
      new MockProducer<>(false, null, new StringSerializer(), new ByteArraySerializer());
  private final DueEmitter emitter = new DueEmitter(producer, "ax.task.due");

  private static DueInstance instance(String id) {
    return new DueInstance(id + "@1", id, 1, "trace-" + id, 7, 1);
  }

  @Test
  void aRefusedEventIsSentAgainAndAnAcceptedOneIsNot() {
    emitter.emit(List.of(instance("a"), instance("b")), 3, 10);
    producer.errorNext(new OutOfOrderSequenceException("broker restarted")); // a
    producer.completeNext(); // b

    assertThat(emitter.pendingResends()).isEqualTo(1);
    assertThat(emitter.resendFailed()).isEqualTo(1);
    producer.completeNext();

    assertThat(producer.history()).extracting(r -> r.key()).containsExactly("a", "b", "a");
    assertThat(emitter.pendingResends()).isZero();
    assertThat(emitter.resendFailed()).isZero();
  }

  @Test
  void anEventRefusedEveryTimeIsLeftToTheReaperAfterItsSends() {
    emitter.emit(List.of(instance("a")), 3, 10);
    for (int send = 1; send <= DueEmitter.MAX_SENDS; send++) {
      producer.errorNext(new OutOfOrderSequenceException("still refused"));
      emitter.resendFailed();
    }

    assertThat(producer.history()).hasSize(DueEmitter.MAX_SENDS);
    assertThat(emitter.pendingResends()).isZero();
  }
}
