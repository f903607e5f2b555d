package dev.ax.dispatcher.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.DependencyEntry;
import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.kafka.KafkaConnection;
import dev.ax.common.testing.TcpProxy;
import dev.ax.common.testing.TestRuntime;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The dispatcher's view of which tasks have dependents, on the real broker. */
@ExtendWith(AxInfraExtension.class)
class UpstreamTasksIT {

  private static final Duration DEADLINE = Duration.ofSeconds(30);

  @Test
  void knowsTheUpstreamsOnceLoadedAndFollowsLaterEntries(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env);
        KafkaProducer<String, byte[]> producer =
            KafkaClients.producer(runtime.kafka(), "test-graph")) {
      String topic = runtime.topics().dependencies();
      send(producer, topic, "a", List.of(new DependencyEntry.Downstream("b", List.of("a"))));
      send(producer, topic, "gone", List.of(new DependencyEntry.Downstream("x", List.of("gone"))));
      send(producer, topic, "gone", List.of());

      UpstreamTasks view = new UpstreamTasks(runtime.kafka(), topic, "test-upstreams");
      assertThat(view.mayHaveDependents("c")).as("before loading: everything").isTrue();
      try (view) {
        view.start();
        await().atMost(DEADLINE).until(view::isLoaded);
        assertThat(view.mayHaveDependents("a")).isTrue();
        assertThat(view.mayHaveDependents("c")).as("no entry").isFalse();
        assertThat(view.mayHaveDependents("gone")).as("entry emptied").isFalse();

        send(producer, topic, "c", List.of(new DependencyEntry.Downstream("d", List.of("c"))));
        await().atMost(DEADLINE).until(() -> view.mayHaveDependents("c"));
        producer.send(new ProducerRecord<>(topic, "a", null)).get();
        await().atMost(DEADLINE).until(() -> !view.mayHaveDependents("a"));
      }
    }
  }

  @Test
  void aStartWhileTheBrokerIsAwayLoadsTheGraphOnceItAnswers(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env);
        KafkaProducer<String, byte[]> producer =
            KafkaClients.producer(runtime.kafka(), "test-graph");
        TcpProxy relay = TcpProxy.inFrontOfBroker(env.bootstrapServers())) {
      String topic = runtime.topics().dependencies();
      send(producer, topic, "a", List.of(new DependencyEntry.Downstream("b", List.of("a"))));
      relay.cut();
      UpstreamTasks view =
          new UpstreamTasks(
              KafkaConnection.plaintext(relay.bootstrapServers()),
              topic,
              "test-upstreams-late",
              Duration.ofMillis(300));
      try (view) {
        view.start();
        // Holds the outage open past several looks; the view must keep looking, not give up.
        Thread.sleep(2_000);
        assertThat(view.isLoaded()).isFalse();
        assertThat(view.mayHaveDependents("c")).as("not loaded: everything").isTrue();

        relay.restore();
        await().atMost(DEADLINE).until(view::isLoaded);
        assertThat(view.mayHaveDependents("a")).isTrue();
        assertThat(view.mayHaveDependents("c")).as("no entry").isFalse();
      }
    }
  }

  @Test
  void closesCleanlyWhenNeverStarted(AxTestEnv env) {
    try (TestRuntime runtime = TestRuntime.open(env)) {
      UpstreamTasks view =
          new UpstreamTasks(runtime.kafka(), runtime.topics().dependencies(), "test-unstarted");
      view.close();
      assertThat(view.start().isLoaded()).as("a closed view does not start").isFalse();
    }
  }

  private static void send(
      KafkaProducer<String, byte[]> producer,
      String topic,
      String upstream,
      List<DependencyEntry.Downstream> downstreams)
      throws Exception {
    producer
        .send(
            new ProducerRecord<>(
                topic,
                upstream,
                AxJson.write(new DependencyEntry(AxJson.VERSION, upstream, downstreams))))
        .get();
  }
}
