package dev.ax.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ax.common.kafka.AclTemplate.Stage;
import dev.ax.common.model.Namespace;
import dev.ax.common.testing.StagePrincipals;
import dev.ax.embedded.AuthorizedSasl;
import dev.ax.embedded.EmbeddedKafka;
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
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each stage's own user with {@link AclTemplate#stage}'s bindings only ({@link StagePrincipals}),
 * on a broker with the StandardAuthorizer: a stage's start-up topic check passes without Create,
 * and a stage's clients reach what its code uses and are refused the rest. Probes with AX's own
 * clients ({@link KafkaClients}), not the running stages.
 */
class StageAclIT {

  private static final Duration DEADLINE = Duration.ofSeconds(30);
  private static final Namespace A = new Namespace("a");
  private static final Namespace B = new Namespace("b");
  private static final Topics TOPICS = new Topics("");
  private static final StagePrincipals STAGES = StagePrincipals.create();
  private static final String ADMIN_PASSWORD = "admin-" + UUID.randomUUID();

  @TempDir static Path dir;
  private static EmbeddedKafka broker;
  private static AuthorizedSasl sasl;
  private static Admin admin;

  @BeforeAll
  static void startBrokerWithStageUsers() throws Exception {
    Map<String, String> users = new HashMap<>(STAGES.plainUsers());
    users.put("admin", ADMIN_PASSWORD);
    sasl = AuthorizedSasl.onFreePort(users, Set.of("admin"));
    broker = EmbeddedKafka.startWithAuthorizer(dir.resolve("kafka"), sasl);
    admin = Admin.create(adminProperties());
    List<NewTopic> topics = new ArrayList<>();
    TOPICS.all(1).forEach((name, partitions) -> topics.add(new NewTopic(name, 1, (short) 1)));
    for (Namespace namespace : List.of(A, B)) {
      TOPICS.ofNamespace(namespace).forEach(name -> topics.add(new NewTopic(name, 1, (short) 1)));
    }
    admin.createTopics(topics).all().get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
    STAGES.grant(admin, new AclTemplate(TOPICS), List.of(A, B));
  }

  @AfterAll
  static void stopBroker() {
    if (admin != null) {
      admin.close();
    }
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void everyStageRuntimesStartUpTopicCheckPassesWithDescribeOnly() {
    for (Stage stage :
        List.of(
            Stage.INGEST,
            Stage.TICKER,
            Stage.DISPATCHER,
            Stage.RETRY,
            Stage.DEADLETTER,
            Stage.RESOLVER)) {
      // What StageRuntime.open does first: every shared topic is seen, so none is created.
      TopicProvisioner.ensure(connection(stage), TOPICS.all(1), (short) 1);
    }
    // Without Describe the topics look missing and creating them is refused: the check is real.
    assertThatThrownBy(
            () -> TopicProvisioner.ensure(connection(Stage.API), TOPICS.all(1), (short) 1))
        .hasStackTraceContaining("TopicAuthorizationException");
  }

  @Test
  void eachStageWritesWhatItsCodeSendsAndNothingElse() throws Exception {
    sends(Stage.RETRY, TOPICS.dueRetry());
    refused(Stage.RETRY, TOPICS.due());
    sends(Stage.DISPATCHER, TOPICS.completed(A));
    sends(Stage.DISPATCHER, TOPICS.completed(B));
    sends(Stage.DISPATCHER, TOPICS.flowSucceeded());
    refused(Stage.DISPATCHER, TOPICS.commands(A));
    sends(Stage.INGEST, TOPICS.commandsRejected(B));
    sends(Stage.INGEST, TOPICS.scheduled());
    refused(Stage.INGEST, TOPICS.completed(B));
    sends(Stage.RESOLVER, TOPICS.commands(B));
    refused(Stage.RESOLVER, TOPICS.completed());
    sends(Stage.API, TOPICS.commands(A));
    refused(Stage.API, TOPICS.due());
    refused(Stage.DEADLETTER, TOPICS.due());
  }

  @Test
  void ingestReadsEveryNamespacesCommandsInItsOwnGroup() throws Exception {
    String marker = "cmd-" + UUID.randomUUID();
    try (KafkaProducer<String, byte[]> api = KafkaClients.producer(connection(Stage.API), "api")) {
      api.send(
              new ProducerRecord<>(
                  TOPICS.commands(B), "t", marker.getBytes(StandardCharsets.UTF_8)))
          .get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
    }
    try (KafkaConsumer<String, byte[]> ingest =
        KafkaClients.consumer(
            connection(Stage.INGEST),
            TOPICS.group("ingest"),
            "ingest-probe",
            100,
            new SimpleMeterRegistry())) {
      ingest.subscribe(List.of(TOPICS.commands(), TOPICS.commands(A), TOPICS.commands(B)));
      List<String> seen = new ArrayList<>();
      await("ingest reads b's command")
          .atMost(DEADLINE)
          .until(
              () -> {
                for (ConsumerRecord<String, byte[]> r : ingest.poll(Duration.ofMillis(200))) {
                  seen.add(new String(r.value(), StandardCharsets.UTF_8));
                }
                return seen.contains(marker);
              });
      ingest.commitSync(Duration.ofSeconds(10));
    }
  }

  private static void sends(Stage stage, String topic) throws Exception {
    try (KafkaProducer<String, byte[]> producer =
        KafkaClients.producer(connection(stage), stage.id() + "-probe")) {
      assertThat(
              producer
                  .send(new ProducerRecord<>(topic, "k", new byte[] {1}))
                  .get(DEADLINE.toSeconds(), TimeUnit.SECONDS)
                  .topic())
          .as("%s writes %s", stage.id(), topic)
          .isEqualTo(topic);
    }
  }

  private static void refused(Stage stage, String topic) {
    try (KafkaProducer<String, byte[]> producer =
        KafkaClients.producer(connection(stage), stage.id() + "-probe")) {
      assertThatThrownBy(
              () ->
                  producer
                      .send(new ProducerRecord<>(topic, "k", new byte[] {1}))
                      .get(DEADLINE.toSeconds(), TimeUnit.SECONDS))
          .as("%s may not write %s", stage.id(), topic)
          .hasCauseInstanceOf(TopicAuthorizationException.class);
    }
  }

  private static KafkaConnection connection(Stage stage) {
    return STAGES.connection(stage, sasl.saslBootstrapServers());
  }

  private static Map<String, Object> adminProperties() {
    Map<String, Object> props = new HashMap<>();
    props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, sasl.saslBootstrapServers());
    props.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
    props.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
    props.put(
        SaslConfigs.SASL_JAAS_CONFIG,
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\""
            + " password=\""
            + ADMIN_PASSWORD
            + "\";");
    return props;
  }
}
