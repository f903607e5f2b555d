package dev.ax.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ax.common.model.Namespace;
import dev.ax.embedded.AuthorizedSasl;
import dev.ax.embedded.EmbeddedKafka;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tenants are isolated by the broker (invariant 13): a KRaft broker with the StandardAuthorizer,
 * denying what no ACL allows, and {@link AclTemplate#tenant} applied for alice (namespace {@code
 * a}) and bob (namespace {@code b}). Alice commands and reads {@code a}; the broker refuses her
 * {@code b}'s topics, and nothing she sends reaches them.
 */
class NamespaceAclIT {

  private static final Duration DEADLINE = Duration.ofSeconds(30);
  private static final Namespace A = new Namespace("a");
  private static final Namespace B = new Namespace("b");
  private static final Topics TOPICS = new Topics("");
  private static final Map<String, String> PASSWORDS =
      Map.of(
          "admin", "admin-" + UUID.randomUUID(),
          "alice", "alice-" + UUID.randomUUID(),
          "bob", "bob-" + UUID.randomUUID());

  @TempDir static Path dir;
  private static EmbeddedKafka broker;
  private static AuthorizedSasl sasl;
  private static Admin admin;

  @BeforeAll
  static void startBrokerWithTenants() throws Exception {
    sasl = AuthorizedSasl.onFreePort(PASSWORDS, Set.of("admin"));
    broker = EmbeddedKafka.startWithAuthorizer(dir.resolve("kafka"), sasl);
    admin = Admin.create(client("admin"));
    List<NewTopic> topics = new ArrayList<>();
    for (Namespace namespace : List.of(A, B)) {
      TOPICS.ofNamespace(namespace).forEach(name -> topics.add(new NewTopic(name, 1, (short) 1)));
    }
    admin.createTopics(topics).all().get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
    AclTemplate template = new AclTemplate(TOPICS);
    List<AclBinding> bindings = new ArrayList<>(template.tenant(A, "User:alice"));
    bindings.addAll(template.tenant(B, "User:bob"));
    admin.createAcls(bindings).all().get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
    // The broker's authorizer has them once it describes them (it answers from its own copy).
    await("the ACLs reach the broker's authorizer")
        .atMost(DEADLINE)
        .until(() -> admin.describeAcls(AclBindingFilter.ANY).values().get().containsAll(bindings));
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
  void aliceCommandsHerNamespaceWithAnIdempotentProducerAndReadsItsCompletions() throws Exception {
    try (KafkaProducer<String, byte[]> alice = producer("alice")) {
      RecordMetadata sent =
          alice
              .send(new ProducerRecord<>(TOPICS.commands(A), "t1", bytes("{\"type\":\"CREATE\"}")))
              .get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
      assertThat(sent.topic()).isEqualTo("ax.a.task.commands");
    }
    // AX's dispatcher would publish this; here the admin does.
    try (KafkaProducer<String, byte[]> ax = producer("admin")) {
      ax.send(new ProducerRecord<>(TOPICS.completed(A), "t1", bytes("done-a")))
          .get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
    }
    try (KafkaConsumer<String, byte[]> alice = consumer("alice", "a.watch")) {
      alice.subscribe(List.of(TOPICS.completed(A)));
      List<String> seen = new ArrayList<>();
      await("alice reads a's completion event")
          .atMost(DEADLINE)
          .until(
              () -> {
                for (ConsumerRecord<String, byte[]> r : alice.poll(Duration.ofMillis(200))) {
                  seen.add(new String(r.value(), StandardCharsets.UTF_8));
                }
                return seen.contains("done-a");
              });
      alice.commitSync(Duration.ofSeconds(10)); // her own group prefix: allowed
    }
  }

  @Test
  void theBrokerRefusesAliceBsCommandsAndNothingArrivesThere() throws Exception {
    long before = endOffset(TOPICS.commands(B));
    try (KafkaProducer<String, byte[]> alice = producer("alice")) {
      Future<RecordMetadata> intrusion =
          alice.send(
              new ProducerRecord<>(TOPICS.commands(B), "t1", bytes("{\"type\":\"CANCEL\"}")));
      assertThatThrownBy(() -> intrusion.get(DEADLINE.toSeconds(), TimeUnit.SECONDS))
          .hasCauseInstanceOf(TopicAuthorizationException.class)
          .cause()
          .satisfies(
              e ->
                  assertThat(((TopicAuthorizationException) e).unauthorizedTopics())
                      .containsExactly("ax.b.task.commands"));
      // Nor AX's internal commands topic (the default namespace's).
      Future<RecordMetadata> internal =
          alice.send(new ProducerRecord<>(TOPICS.commands(), "t1", bytes("{}")));
      assertThatThrownBy(() -> internal.get(DEADLINE.toSeconds(), TimeUnit.SECONDS))
          .hasCauseInstanceOf(TopicAuthorizationException.class);
    }
    assertThat(endOffset(TOPICS.commands(B)))
        .as("nothing of alice's on b's topic")
        .isEqualTo(before);

    // The check can fail: b's own tenant does reach the topic.
    try (KafkaProducer<String, byte[]> bob = producer("bob")) {
      bob.send(new ProducerRecord<>(TOPICS.commands(B), "t1", bytes("{\"type\":\"CREATE\"}")))
          .get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
    }
    assertThat(endOffset(TOPICS.commands(B))).isEqualTo(before + 1);
  }

  @Test
  void aliceCannotReadBsCompletionsNorJoinBsGroups() {
    try (KafkaConsumer<String, byte[]> alice = consumer("alice", "a.sneak")) {
      alice.subscribe(List.of(TOPICS.completed(B)));
      RuntimeException refusal = pollUntilRefused(alice);
      assertThat(refusal).isInstanceOf(TopicAuthorizationException.class);
      assertThat(((TopicAuthorizationException) refusal).unauthorizedTopics())
          .containsExactly("ax.b.task.completed");
    }
    try (KafkaConsumer<String, byte[]> alice = consumer("alice", "b.watch")) {
      alice.subscribe(List.of(TOPICS.completed(A)));
      assertThat(pollUntilRefused(alice)).isInstanceOf(GroupAuthorizationException.class);
    }
    try (KafkaConsumer<String, byte[]> alice = consumer("alice", "a.sneak-rejected")) {
      alice.subscribe(List.of(TOPICS.commandsRejected(B)));
      assertThat(pollUntilRefused(alice)).isInstanceOf(TopicAuthorizationException.class);
    }
  }

  /** Polls until the broker's refusal surfaces (the first metadata or group round trip). */
  private static RuntimeException pollUntilRefused(KafkaConsumer<String, byte[]> consumer) {
    AtomicReference<RuntimeException> refusal = new AtomicReference<>();
    await("the broker refuses")
        .atMost(DEADLINE)
        .until(
            () -> {
              try {
                consumer.poll(Duration.ofMillis(200));
                return false;
              } catch (TopicAuthorizationException | GroupAuthorizationException e) {
                refusal.set(e);
                return true;
              }
            });
    return refusal.get();
  }

  private static long endOffset(String topic) throws Exception {
    TopicPartition partition = new TopicPartition(topic, 0);
    return admin
        .listOffsets(Map.of(partition, OffsetSpec.latest()))
        .partitionResult(partition)
        .get(DEADLINE.toSeconds(), TimeUnit.SECONDS)
        .offset();
  }

  private static KafkaProducer<String, byte[]> producer(String user) {
    Map<String, Object> props = client(user);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    // As AX's and most tenants' producers: idempotent, so the broker must let it initialise.
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) DEADLINE.toMillis());
    return new KafkaProducer<>(props);
  }

  private static KafkaConsumer<String, byte[]> consumer(String user, String group) {
    Map<String, Object> props = client(user);
    props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    return new KafkaConsumer<>(props);
  }

  /** The SASL listener's settings for {@code user}. */
  private static Map<String, Object> client(String user) {
    Map<String, Object> props = new HashMap<>();
    props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, sasl.saslBootstrapServers());
    props.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
    props.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
    props.put(
        SaslConfigs.SASL_JAAS_CONFIG,
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
            + user
            + "\" password=\""
            + PASSWORDS.get(user)
            + "\";");
    props.put(CommonClientConfigs.CLIENT_ID_CONFIG, user + "-" + UUID.randomUUID());
    return props;
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
