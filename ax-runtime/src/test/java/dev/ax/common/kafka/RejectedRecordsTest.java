package dev.ax.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class RejectedRecordsTest {

  private static final String TOPIC = "ax.task.commands.rejected";
  private static final int MAX_REQUEST_BYTES = 64 * 1024;

  /** A broker that takes records up to {@code maxValueBytes} of value and fails larger ones. */
  private static final class Broker extends MockProducer<String, byte[]> {
    private final int maxValueBytes;
    private RuntimeException failNext;

    Broker(int maxValueBytes) {
      super(true, null, new StringSerializer(), new ByteArraySerializer());
      this.maxValueBytes = maxValueBytes;
    }

    @Override
    public synchronized Future<RecordMetadata> send(
        ProducerRecord<String, byte[]> record, Callback callback) {
      if (failNext != null) {
        RuntimeException failure = failNext;
        failNext = null;
        return CompletableFuture.failedFuture(failure);
      }
      if (record.value() != null && record.value().length > maxValueBytes) {
        return CompletableFuture.failedFuture(new RecordTooLargeException("message.max.bytes"));
      }
      return super.send(record, callback);
    }
  }

  private static ConsumerRecord<String, byte[]> command(String key, int valueBytes) {
    byte[] value = new byte[valueBytes];
    java.util.Arrays.fill(value, (byte) 'x');
    return new ConsumerRecord<>("ax.task.commands", 2, 41L, key, value);
  }

  private static String header(ProducerRecord<String, byte[]> record, String name) {
    return record.headers().lastHeader(name) == null
        ? null
        : new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
  }

  @Test
  void aRejectionThatFitsEchoesTheKeyAndValueWithTheReasonAndSource() throws Exception {
    Broker broker = new Broker(Integer.MAX_VALUE);
    RejectedRecords rejections = new RejectedRecords(broker, TOPIC, MAX_REQUEST_BYTES);

    rejections.send(command("t", 100), "why").get();

    ProducerRecord<String, byte[]> sent = broker.history().get(0);
    assertThat(sent.topic()).isEqualTo(TOPIC);
    assertThat(sent.key()).isEqualTo("t");
    assertThat(sent.value()).hasSize(100);
    assertThat(header(sent, RejectHeaders.REASON)).isEqualTo("why");
    assertThat(header(sent, RejectHeaders.SOURCE_TOPIC)).isEqualTo("ax.task.commands");
    assertThat(header(sent, RejectHeaders.SOURCE_PARTITION)).isEqualTo("2");
    assertThat(header(sent, RejectHeaders.SOURCE_OFFSET)).isEqualTo("41");
    assertThat(header(sent, RejectHeaders.VALUE_SHA256)).isNull();
  }

  @Test
  void aRejectionPredictedTooLargeForTheProducerGoesWithoutItsValue() throws Exception {
    Broker broker = new Broker(Integer.MAX_VALUE);
    RejectedRecords rejections = new RejectedRecords(broker, TOPIC, MAX_REQUEST_BYTES);
    ConsumerRecord<String, byte[]> huge = command("t", MAX_REQUEST_BYTES);

    rejections.send(huge, "command is too large").get();

    assertThat(broker.history()).hasSize(1);
    ProducerRecord<String, byte[]> sent = broker.history().get(0);
    assertThat(sent.value()).isNull();
    assertThat(sent.key()).isEqualTo("t");
    assertThat(header(sent, RejectHeaders.REASON)).isEqualTo("command is too large");
    assertThat(header(sent, RejectHeaders.SOURCE_OFFSET)).isEqualTo("41");
    assertThat(header(sent, RejectHeaders.VALUE_BYTES))
        .isEqualTo(Integer.toString(MAX_REQUEST_BYTES));
    assertThat(header(sent, RejectHeaders.VALUE_SHA256)).isEqualTo(sha256(huge.value()));
  }

  @Test
  void aRejectionTheBrokerFindsTooLargeIsSentAgainWithoutItsValue() throws Exception {
    Broker broker = new Broker(1000);
    RejectedRecords rejections = new RejectedRecords(broker, TOPIC, MAX_REQUEST_BYTES);
    ConsumerRecord<String, byte[]> large = command("t", 5000);

    RecordMetadata metadata = rejections.send(large, "why").get();

    assertThat(metadata.topic()).isEqualTo(TOPIC);
    List<ProducerRecord<String, byte[]>> sent = broker.history();
    assertThat(sent).hasSize(1); // the failed full record never reached the mock's history
    assertThat(sent.get(0).value()).isNull();
    assertThat(header(sent.get(0), RejectHeaders.VALUE_SHA256)).isEqualTo(sha256(large.value()));
  }

  @Test
  void aHugeKeyIsDroppedAndDigestedToo() throws Exception {
    Broker broker = new Broker(Integer.MAX_VALUE);
    RejectedRecords rejections = new RejectedRecords(broker, TOPIC, MAX_REQUEST_BYTES);
    String key = "k".repeat(MAX_REQUEST_BYTES);

    rejections.send(command(key, 10), "why").get();

    ProducerRecord<String, byte[]> sent = broker.history().get(0);
    assertThat(sent.key()).isNull();
    assertThat(header(sent, RejectHeaders.KEY_SHA256))
        .isEqualTo(sha256(key.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void anyOtherSendFailureIsLeftToTheCaller() {
    Broker broker = new Broker(Integer.MAX_VALUE);
    broker.failNext = new NotLeaderOrFollowerException("moved");
    RejectedRecords rejections = new RejectedRecords(broker, TOPIC, MAX_REQUEST_BYTES);

    assertThatThrownBy(() -> rejections.send(command("t", 10), "why").get())
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(NotLeaderOrFollowerException.class);
    assertThat(broker.history()).isEmpty();
  }

  private static String sha256(byte[] bytes) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }
}
