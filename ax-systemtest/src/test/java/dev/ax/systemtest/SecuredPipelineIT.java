package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.kafka.AclTemplate;
import dev.ax.common.kafka.AclTemplate.Stage;
import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.kafka.KafkaConnection;
import dev.ax.common.kafka.Topics;
import dev.ax.common.model.Namespace;
import dev.ax.common.store.NamespaceStore;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.StagePrincipals;
import dev.ax.common.testing.TestRuntime;
import dev.ax.dispatcher.DispatcherConfig;
import dev.ax.dispatcher.DispatcherStage;
import dev.ax.embedded.AuthorizedSasl;
import dev.ax.embedded.EmbeddedKafka;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.ingest.IngestConfig;
import dev.ax.ingest.IngestStage;
import dev.ax.resolver.ResolverConfig;
import dev.ax.resolver.ResolverStage;
import dev.ax.ticker.TickerConfig;
import dev.ax.ticker.TickerStage;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * AX's own stages on a broker with SASL and the StandardAuthorizer, each stage as its own user with
 * its least-privilege ACLs ({@link AclTemplate}, granted by {@code ax acl --apply} as the operator
 * runs it), and two tenants: alice may command and read namespace a only. Her task and a flow
 * behind it run through ingest, the ticker, the resolver and a dispatcher, and their completions
 * reach her on a's topic; her produce to b's commands is refused by the broker and nothing of b
 * changes; her read of b's completion events is refused.
 */
@ExtendWith(AxInfraExtension.class)
class SecuredPipelineIT {

  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private static final Namespace A = new Namespace("a");
  private static final Namespace B = new Namespace("b");

  @TempDir Path dir;

  @Test
  void aTenantCommandsAndReadsItsNamespaceOnlyAndTheStagesRunUnderTheirOwnAcls(AxTestEnv env)
      throws Exception {
    StagePrincipals stages = StagePrincipals.create();
    Map<String, String> users = new HashMap<>(stages.plainUsers());
    String adminPassword = "admin-" + UUID.randomUUID();
    String alicePassword = "alice-" + UUID.randomUUID();
    users.put("admin", adminPassword);
    users.put("alice", alicePassword);
    users.put("bob", "bob-" + UUID.randomUUID());
    AuthorizedSasl sasl = AuthorizedSasl.onFreePort(users, Set.of("admin"));
    try (EmbeddedKafka broker = EmbeddedKafka.startWithAuthorizer(dir.resolve("kafka"), sasl);
        TestRuntime runtime = TestRuntime.open(env);
        Admin admin = KafkaClients.admin(login(sasl, "admin", adminPassword))) {
      Topics topics = runtime.topics();
      List<NewTopic> created = new ArrayList<>();
      topics.all(1).keySet().forEach(name -> created.add(new NewTopic(name, 1, (short) 1)));
      for (Namespace namespace : List.of(A, B)) {
        topics
            .ofNamespace(namespace)
            .forEach(name -> created.add(new NewTopic(name, 1, (short) 1)));
      }
      admin.createTopics(created).all().get(30, TimeUnit.SECONDS);
      AclTemplate template = new AclTemplate(topics);
      // The operator's command grants every stage its ACLs, as the secure deployments do.
      System.setProperty("AX_KAFKA_BOOTSTRAP", sasl.saslBootstrapServers());
      System.setProperty("AX_TOPIC_PREFIX", topics.prefix());
      System.setProperty("AX_KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT");
      System.setProperty("AX_KAFKA_SASL_MECHANISM", "PLAIN");
      System.setProperty("AX_KAFKA_SASL_JAAS_CONFIG", jaas("admin", adminPassword));
      CliRun applied;
      try {
        applied = CliRun.ax("acl", "--apply", "--namespace", "a", "--namespace", "b");
      } finally {
        List.of(
                "AX_KAFKA_BOOTSTRAP",
                "AX_TOPIC_PREFIX",
                "AX_KAFKA_SECURITY_PROTOCOL",
                "AX_KAFKA_SASL_MECHANISM",
                "AX_KAFKA_SASL_JAAS_CONFIG")
            .forEach(System::clearProperty);
      }
      assertThat(applied.exitCode()).as(applied.err() + applied.out()).isZero();
      List<org.apache.kafka.common.acl.AclBinding> expected = new ArrayList<>();
      for (Stage stage : Stage.values()) {
        expected.addAll(template.stage(stage, StagePrincipals.principal(stage), List.of(A, B)));
      }
      await()
          .atMost(DEADLINE)
          .until(
              () ->
                  admin
                      .describeAcls(org.apache.kafka.common.acl.AclBindingFilter.ANY)
                      .values()
                      .get()
                      .containsAll(expected));
      admin.createAcls(template.tenant(A, "User:alice")).all().get(30, TimeUnit.SECONDS);
      admin.createAcls(template.tenant(B, "User:bob")).all().get(30, TimeUnit.SECONDS);
      NamespaceStore namespaces = new NamespaceStore(runtime.dataSource());
      namespaces.create(A, "test", System.currentTimeMillis());
      namespaces.create(B, "test", System.currentTimeMillis());

      String saslServers = sasl.saslBootstrapServers();
      KafkaConnection alice = login(sasl, "alice", alicePassword);
      try (IngestStage ingest =
              new IngestStage(
                      stages.context(runtime.context("node-1"), Stage.INGEST, saslServers),
                      IngestConfig.from(runtime.config()))
                  .start();
          TickerStage ticker =
              new TickerStage(
                      stages.context(runtime.context("node-1"), Stage.TICKER, saslServers),
                      TickerConfig.from(runtime.config()))
                  .start();
          ResolverStage resolver =
              new ResolverStage(
                      stages.context(runtime.context("node-1"), Stage.RESOLVER, saslServers),
                      ResolverConfig.from(runtime.config()))
                  .start();
          DispatcherStage dispatcher =
              new DispatcherStage(
                      stages.context(runtime.context("node-1"), Stage.DISPATCHER, saslServers),
                      DispatcherConfig.from(runtime.config()))
                  .start();
          KafkaProducer<String, byte[]> alicesProducer = KafkaClients.producer(alice, "alice");
          KafkaConsumer<String, byte[]> alicesReader =
              KafkaClients.consumer(
                  alice, "a.reader", "alice-reader", 100, new SimpleMeterRegistry())) {
        await().atMost(DEADLINE).until(resolver::isRunning);
        alicesProducer
            .send(record(topics.commands(A), "job", once("job", 3_000)))
            .get(30, TimeUnit.SECONDS);
        TaskStore tasks = new TaskStore(runtime.dataSource());
        await().atMost(DEADLINE).until(() -> tasks.find("a~job").isPresent());
        // A flow in the namespace: the resolver, as its own user, triggers the downstream.
        alicesProducer
            .send(
                record(
                    topics.commands(A),
                    "after",
                    "{\"v\":1,\"taskId\":\"after\",\"trigger\":{\"type\":\"DEPENDENCY\","
                        + "\"upstream\":[\"job\"]},"
                        + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"},"
                        + "\"timeoutMs\":5000}"))
            .get(30, TimeUnit.SECONDS);
        await().atMost(DEADLINE).until(() -> tasks.find("a~after").isPresent());

        alicesReader.subscribe(List.of(topics.completed(A)));
        List<TaskCompletedEvent> events = new ArrayList<>();
        await()
            .atMost(DEADLINE)
            .until(
                () -> {
                  for (ConsumerRecord<String, byte[]> r :
                      alicesReader.poll(Duration.ofMillis(200))) {
                    events.add(AxJson.read(r.value(), TaskCompletedEvent.class));
                  }
                  return events.size() >= 2;
                });
        assertThat(events)
            .extracting(TaskCompletedEvent::taskId)
            .containsExactlyInAnyOrder("job", "after");
        assertThat(events).allSatisfy(e -> assertThat(e.namespace()).isEqualTo("a"));

        // Namespace b: the broker refuses alice's produce; nothing of b changes.
        ExecutionException refused =
            org.junit.jupiter.api.Assertions.assertThrows(
                ExecutionException.class,
                () ->
                    alicesProducer
                        .send(record(topics.commands(B), "job", once("job", 200)))
                        .get(30, TimeUnit.SECONDS));
        assertThat(refused).hasCauseInstanceOf(TopicAuthorizationException.class);
        TopicPartition bCommands = new TopicPartition(topics.commands(B), 0);
        assertThat(
                admin
                    .listOffsets(Map.of(bCommands, OffsetSpec.latest()))
                    .partitionResult(bCommands)
                    .get(30, TimeUnit.SECONDS)
                    .offset())
            .as("nothing reached b's commands topic")
            .isZero();
        assertThat(tasks.find("b~job")).isEmpty();
        try (KafkaConsumer<String, byte[]> peek =
            KafkaClients.consumer(alice, "a.peek", "alice-peek", 100, new SimpleMeterRegistry())) {
          peek.subscribe(List.of(topics.completed(B)));
          assertThatThrownBy(
                  () -> {
                    long until = System.nanoTime() + DEADLINE.toNanos();
                    while (System.nanoTime() < until) {
                      peek.poll(Duration.ofMillis(200));
                    }
                  })
              .isInstanceOf(TopicAuthorizationException.class);
        }
      }
    }
  }

  private static ProducerRecord<String, byte[]> record(String topic, String key, String json) {
    return new ProducerRecord<>(topic, key, json.getBytes(StandardCharsets.UTF_8));
  }

  private static String once(String taskId, long delayMs) {
    return "{\"v\":1,\"taskId\":\""
        + taskId
        + "\",\"trigger\":{\"type\":\"ONCE\",\"delayMs\":"
        + delayMs
        + "},"
        + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"},\"timeoutMs\":5000}";
  }

  private static String jaas(String user, String password) {
    return StagePrincipals.plainJaas(user, password);
  }

  private static KafkaConnection login(AuthorizedSasl sasl, String user, String password) {
    return StagePrincipals.saslPlain(sasl.saslBootstrapServers(), user, password);
  }
}
