package dev.ax.dispatcher.claim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskDueEvent;
import dev.ax.common.kafka.RejectHeaders;
import dev.ax.common.kafka.Topics;
import dev.ax.common.testing.TestTasks;
import dev.ax.dispatcher.run.Bulkheads;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class HandBackTest {

  private final MockProducer<String, byte[]> producer =
      new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final HandBack handBack = new HandBack(producer, new Topics(""), meters);

  private static TaskDueEvent due(String taskId, String traceId) {
    return TestTasks.dueEvent(taskId, taskId + "@1000", 1000, 0, 1001, traceId, "g");
  }

  @Test
  void eachEventGoesBackToItsPoolsTopicKeyedByTaskWithItsTraceHeader() {
    Map<String, List<TaskDueEvent>> byPool = new LinkedHashMap<>();
    byPool.put("g", List.of(due("a", "trace-a")));
    byPool.put(Bulkheads.RETRY_GROUP, List.of(due("b", "trace-b"), due("c", null)));

    handBack.send(byPool, "partitions revoked");

    List<ProducerRecord<String, byte[]>> sent = producer.history();
    assertThat(sent)
        .extracting(ProducerRecord::topic, ProducerRecord::key)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("ax.task.due", "a"),
            org.assertj.core.groups.Tuple.tuple("ax.task.due.retry", "b"),
            org.assertj.core.groups.Tuple.tuple("ax.task.due.retry", "c"));
    assertThat(
            new String(
                sent.get(0).headers().lastHeader(RejectHeaders.TRACE_ID).value(),
                StandardCharsets.UTF_8))
        .isEqualTo("trace-a");
    assertThat(
            new String(
                sent.get(1).headers().lastHeader(RejectHeaders.TRACE_ID).value(),
                StandardCharsets.UTF_8))
        .isEqualTo("trace-b");
    assertThat(sent.get(2).headers().lastHeader(RejectHeaders.TRACE_ID)).isNull();
    assertThat(AxJson.read(sent.get(1).value(), TaskDueEvent.class).taskId()).isEqualTo("b");
    assertThat(meters.counter("ax.dispatcher.handed.back.events").count()).isEqualTo(3.0);
  }

  @Test
  void nothingHeldSendsNothing() {
    handBack.send(Map.of(), "shutting down");

    assertThat(producer.history()).isEmpty();
    assertThat(meters.counter("ax.dispatcher.handed.back.events").count()).isZero();
  }
}
