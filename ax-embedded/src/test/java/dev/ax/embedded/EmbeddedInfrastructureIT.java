package dev.ax.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(AxInfraExtension.class)
class EmbeddedInfrastructureIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  /** Every env handed to a test of this class, one per test method invocation. */
  private static final Queue<AxTestEnv> ENVS = new ConcurrentLinkedQueue<>();

  private final AxTestEnv constructorEnv;
  private AxTestEnv beforeEachEnv;

  EmbeddedInfrastructureIT(AxTestEnv env) {
    this.constructorEnv = env;
  }

  @BeforeEach
  void rememberEnv(AxTestEnv env) {
    beforeEachEnv = env;
    ENVS.add(env);
  }

  @AfterAll
  static void everyTestGotItsOwnDatabaseAndPrefix() {
    List<AxTestEnv> envs = new ArrayList<>(ENVS);
    assertThat(envs).hasSizeGreaterThanOrEqualTo(2);
    assertThat(envs.stream().map(e -> e.database().jdbcUrl())).doesNotHaveDuplicates();
    assertThat(envs.stream().map(AxTestEnv::topicPrefix)).doesNotHaveDuplicates();
  }

  @Test
  void producesAndConsumesOneRecord(AxTestEnv env) {
    String topic = env.topicPrefix() + "greetings";
    env.createTopics(Map.of(topic, 3));

    RecordMetadata sent;
    try (KafkaProducer<String, String> producer = producer(env)) {
      sent = producer.send(new ProducerRecord<>(topic, "key-1", "hello")).get();
    } catch (Exception e) {
      throw new AssertionError("send to " + topic + " failed", e);
    }
    assertThat(sent.topic()).isEqualTo(topic);

    List<ConsumerRecord<String, String>> received = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = consumer(env, env.topicPrefix() + "group")) {
      consumer.subscribe(List.of(topic));
      await()
          .atMost(TIMEOUT)
          .until(
              () -> {
                consumer.poll(Duration.ofMillis(100)).forEach(received::add);
                return !received.isEmpty();
              });
    }
    assertThat(received).hasSize(1);
    assertThat(received.get(0).key()).isEqualTo("key-1");
    assertThat(received.get(0).value()).isEqualTo("hello");
    assertThat(received.get(0).partition()).isEqualTo(sent.partition());
  }

  @Test
  void createTopicsSkipsExistingTopics(AxTestEnv env) throws Exception {
    String existing = env.topicPrefix() + "existing";
    String added = env.topicPrefix() + "added";
    env.createTopics(Map.of(existing, 2));

    env.createTopics(Map.of(existing, 2, added, 1));

    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, env.bootstrapServers()))) {
      assertThat(admin.listTopics().names().get()).contains(existing, added);
    }
  }

  @Test
  void createTopicsRejectsZeroPartitions(AxTestEnv env) {
    String topic = env.topicPrefix() + "empty";
    assertThatThrownBy(() -> env.createTopics(Map.of(topic, 0)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(topic)
        .hasMessageContaining("0");
  }

  @Test
  void writesAndReadsARowInItsOwnFreshDatabase(AxTestEnv env) throws SQLException {
    DatabaseCoordinates db = env.database();
    assertThat(db.jdbcUrl()).startsWith("jdbc:mysql://").contains("/ax_");

    try (Connection connection =
            DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password());
        Statement statement = connection.createStatement()) {
      try (ResultSet tables =
          statement.executeQuery(
              "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE()")) {
        tables.next();
        assertThat(tables.getInt(1)).as("tables in a fresh database").isZero();
      }
      statement.execute(
          "CREATE TABLE task (id BIGINT PRIMARY KEY, name VARCHAR(100) NOT NULL) ENGINE=InnoDB");
      statement.execute("INSERT INTO task (id, name) VALUES (1, 'first ✓')");
      try (ResultSet rows = statement.executeQuery("SELECT id, name FROM task")) {
        assertThat(rows.next()).isTrue();
        assertThat(rows.getLong("id")).isEqualTo(1);
        assertThat(rows.getString("name")).isEqualTo("first ✓");
        assertThat(rows.next()).isFalse();
      }
    }
  }

  @Test
  void constructorBeforeEachAndMethodShareOneEnv(AxTestEnv env) {
    assertThat(constructorEnv).isSameAs(env);
    assertThat(beforeEachEnv).isSameAs(env);
  }

  @RepeatedTest(2)
  void eachInvocationGetsItsOwnEnv(AxTestEnv env) {
    assertThat(ENVS.stream().filter(e -> e == env)).hasSize(1);
    assertThat(env.topicPrefix()).matches("[a-z0-9.-]+-");
    assertThat(env.database().jdbcUrl()).matches("jdbc:mysql://[^/]+/ax_[a-z0-9_]+(\\?.*)?");
  }

  @Test
  void createDatabaseRejectsInvalidNames() {
    SharedInfrastructure infrastructure = SharedInfrastructure.get();
    assertThatThrownBy(() -> infrastructure.createDatabase("bad`name"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bad`name");
    assertThatThrownBy(() -> infrastructure.createDatabase("x".repeat(65)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void sharedInfrastructureIsASingleton() {
    assertThat(SharedInfrastructure.get()).isSameAs(SharedInfrastructure.get());
  }

  private static KafkaProducer<String, String> producer(AxTestEnv env) {
    return new KafkaProducer<>(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            env.bootstrapServers(),
            ProducerConfig.ACKS_CONFIG,
            "all"),
        new StringSerializer(),
        new StringSerializer());
  }

  private static KafkaConsumer<String, String> consumer(AxTestEnv env, String groupId) {
    return new KafkaConsumer<>(
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            env.bootstrapServers(),
            ConsumerConfig.GROUP_ID_CONFIG,
            groupId,
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
            "earliest"),
        new StringDeserializer(),
        new StringDeserializer());
  }
}
