package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.common.contract.AxJson;
import dev.ax.common.kafka.RejectHeaders;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.RawSql;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TopicReader;
import dev.ax.deadletter.DeadLetterStore;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.embedded.junit.WallClock;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * The hostile corpus, end to end, as a careless or hostile producer would send it: through a plain
 * KafkaProducer, every file of {@code docs/contract/examples/invalid/}, generated payloads (huge,
 * deeply nested, binary, boundary numbers in every numeric field), garbage on every internal topic,
 * and one command the database itself refuses (a trigger), then a valid task. Each hostile command
 * must come out on the rejected topic once, with a reason; the valid task must run on time; no
 * stage may stop or log the same line twice; and after a restart on the same database and topics
 * everything must still flow, with nothing handled again.
 */
@ExtendWith(AxInfraExtension.class)
@WallClock
class HostileInputIT {

  private static final Path INVALID = Path.of("..", "docs", "contract", "examples", "invalid");

  /** The task id the database trigger refuses: a record that fails, not from an outage. */
  private static final String POISON_TASK = "poison-at-the-database";

  private static final long VALID_DELAY_MS = 3000;

  /** Claim lateness allowed for the valid task on this shared host; the contract is 500 ms. */
  private static final long LATENESS_TOLERANCE_MS = 1500;

  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
  private Logger axLogger;

  @BeforeEach
  void captureLogs() {
    axLogger = (Logger) LoggerFactory.getLogger("dev.ax");
    logged.start();
    axLogger.addAppender(logged);
  }

  @AfterEach
  void stopCapturing() {
    axLogger.detachAppender(logged);
  }

  @Test
  void noHostileInputStopsAStageAndTheValidTaskBehindItRunsOnTime(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env, Map.of("AX_HTTP_ALLOWED_HOSTS", "127.0.0.1"));
        KafkaProducer<byte[], byte[]> producer = rawProducer(runtime.bootstrapServers());
        TopicReader rejected = UserClients.rejected(runtime);
        TopicReader completed = UserClients.completed(runtime)) {
      boolean databasePoison = installPoisonTrigger(runtime);

      Map<String, String> hostileByOffset = new LinkedHashMap<>();
      try (RunningStages stages = startAll(runtime, "node-1")) {
        for (Map.Entry<String, byte[]> hostile : hostileCommands(databasePoison).entrySet()) {
          hostileByOffset.put(
              at(send(producer, runtime.topics().commands(), null, hostile.getValue())),
              hostile.getKey());
        }
        sendInternalGarbage(producer, runtime);
        send(producer, runtime.topics().commands(), "valid-1", valid("valid-1"));
        int closedPort;
        try (ServerSocket probe = new ServerSocket(0)) {
          closedPort = probe.getLocalPort(); // nothing listens there: every call fails
        }
        send(producer, runtime.topics().commands(), "failing-1", failing("failing-1", closedPort));
        TaskStore tasks = new TaskStore(runtime.dataSource());
        await().atMost(Duration.ofSeconds(60)).until(() -> tasks.find("valid-1").isPresent());
        send(producer, runtime.topics().commands(), "child-1", childOf("child-1", "valid-1"));

        Map<String, List<ConsumerRecord<String, byte[]>>> rejections =
            awaitRejections(rejected, hostileByOffset);
        assertOnTime(awaitSuccess(completed, "valid-1"));
        // Every stage still works: the resolver and ingest ran the dependent task, the retry
        // stage retried the failing one, and the dead-letter stage stored it.
        awaitSuccess(completed, "child-1");
        DeadLetterStore letters = new DeadLetterStore(runtime.dataSource());
        DeadLetters.awaitNewest(letters, "failing-1", Duration.ofSeconds(60));
        assertThat(new InstanceStore(runtime.dataSource()).findByTask("failing-1").get(0).attempt())
            .as("attempts of failing-1: the first and its one retry")
            .isEqualTo(2);

        for (Map.Entry<String, String> hostile : hostileByOffset.entrySet()) {
          List<ConsumerRecord<String, byte[]>> copies = rejections.get(hostile.getKey());
          assertThat(copies).as("rejections of %s", hostile.getValue()).hasSize(1);
          String reason = header(copies.get(0), RejectHeaders.REASON);
          assertThat(reason).as("reason for %s", hostile.getValue()).isNotBlank();
          assertThat(reason.length())
              .as("reason length for %s", hostile.getValue())
              .isLessThan(600);
        }
        if (databasePoison) {
          String poisonAt = offsetOf(hostileByOffset, POISON_TASK);
          assertThat(header(rejections.get(poisonAt).get(0), RejectHeaders.REASON))
              .startsWith("internal error: ")
              .contains("refused by a test trigger");
        }
      }

      assertNoLineRepeats();

      // The same database and topics, new stages: nothing hostile comes back, and a new task runs.
      // (The new dispatcher reads the compacted ax.task.dependencies from its start, so it logs
      // the garbage entry there once more: once per process, not once per poll.)
      synchronized (logged) { // AppenderBase appends under this lock
        logged.list.clear();
      }
      int rejectedBefore = rejected.poll().size();
      assertThat(rejectedBefore)
          .as("rejections of the first run: each hostile command once, nothing else")
          .isEqualTo(hostileByOffset.size());
      try (RunningStages stages = startAll(runtime, "node-2")) {
        send(producer, runtime.topics().commands(), "valid-2", valid("valid-2"));
        assertOnTime(awaitSuccess(completed, "valid-2"));
      }
      assertThat(rejected.poll()).as("rejections after the restart").hasSize(rejectedBefore);
      assertThat(
              completed.poll().stream()
                  .filter(r -> r.key() != null && r.key().startsWith("valid-"))
                  .count())
          .as("completions of the two valid tasks: each ran once")
          .isEqualTo(2);
    }
    assertNoLineRepeats();
  }

  /** Every hostile command, named; the files first, then the generated ones. */
  private static Map<String, byte[]> hostileCommands(boolean databasePoison) throws IOException {
    Map<String, byte[]> hostile = new LinkedHashMap<>();
    try (Stream<Path> files = Files.list(INVALID)) {
      for (Path file : files.sorted().collect(Collectors.toList())) {
        hostile.put(file.getFileName().toString(), Files.readAllBytes(file));
      }
    }
    hostile.put("generated: empty", new byte[0]);
    byte[] binary = new byte[4096];
    new Random(16).nextBytes(binary);
    hostile.put("generated: random bytes", binary);
    hostile.put(
        "generated: 900 KB of params",
        validWith("\"params\":{\"blob\":\"" + "x".repeat(900 * 1024) + "\"}"));
    // Just under the broker's default limit (1 MiB): with the reason's headers added, the rejection
    // is over it, and must still come out (without the value).
    hostile.put("generated: just under the broker's limit", invalidOfSize(1_048_400));
    hostile.put(
        "generated: params nested 5000 deep",
        validWith("\"params\":" + "{\"a\":".repeat(5000) + "1" + "}".repeat(5000)));
    hostile.put("generated: array nested 100000 deep", utf8("[".repeat(100_000)));
    hostile.put("generated: truncated", Arrays.copyOf(valid("truncated"), 40));
    if (databasePoison) {
      hostile.put(POISON_TASK, valid(POISON_TASK));
    }
    return hostile;
  }

  /**
   * What a stage reading an internal topic may meet from a misconfigured producer: nothing of it is
   * a command, and none of it may stop the stage that reads it.
   */
  private static void sendInternalGarbage(
      KafkaProducer<byte[], byte[]> producer, TestRuntime runtime) throws Exception {
    byte[] binary = new byte[512];
    new Random(17).nextBytes(binary);
    long max = Long.MAX_VALUE;
    byte[] extreme =
        utf8(
            "{\"v\":1,\"taskId\":\"ghost\",\"instanceId\":\"ghost@1\",\"dueAtMs\":"
                + max
                + ",\"retryAtMs\":"
                + max
                + ",\"seq\":"
                + max
                + ",\"epoch\":"
                + max
                + ",\"attempt\":2147483647,\"finishedAtMs\":"
                + max
                + ",\"startedAtMs\":"
                + Long.MIN_VALUE
                + ",\"status\":\"SUCCESS\",\"instanceStatus\":\"SUCCESS\","
                + "\"triggerType\":\"FIXED_DELAY\",\"flowRunId\":\"f\"}");
    List<String> topics =
        List.of(
            runtime.topics().scheduled(),
            runtime.topics().due(),
            runtime.topics().dueRetry(),
            runtime.topics().retry(),
            runtime.topics().deadletter(),
            runtime.topics().completed(),
            runtime.topics().flowSucceeded(),
            runtime.topics().dependencies());
    for (String topic : topics) {
      for (byte[] value :
          List.of(binary, utf8("{}"), utf8("null"), utf8("[1,2]"), extreme, new byte[0])) {
        send(producer, topic, "ghost", value);
      }
    }
  }

  /** True when the database took a trigger that refuses {@link #POISON_TASK}'s insert. */
  private static boolean installPoisonTrigger(TestRuntime runtime) {
    try {
      RawSql.execute(
          runtime.dataSource(),
          "CREATE TRIGGER ax_test_poison BEFORE INSERT ON ax_task FOR EACH ROW BEGIN"
              + " IF NEW.task_id = '"
              + POISON_TASK
              + "' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused by a test trigger';"
              + " END IF; END");
      return true;
    } catch (java.sql.SQLException e) {
      System.out.println(
          "HostileInputIT: no database trigger (" + e.getMessage() + "); poison case skipped");
      return false;
    }
  }

  private static Map<String, List<ConsumerRecord<String, byte[]>>> awaitRejections(
      TopicReader rejected, Map<String, String> hostileByOffset) {
    Map<String, List<ConsumerRecord<String, byte[]>>> bySource = new HashMap<>();
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              bySource.clear(); // poll() returns everything read so far
              for (ConsumerRecord<String, byte[]> record : rejected.poll()) {
                String source =
                    header(record, RejectHeaders.SOURCE_PARTITION)
                        + "@"
                        + header(record, RejectHeaders.SOURCE_OFFSET);
                bySource.computeIfAbsent(source, k -> new ArrayList<>()).add(record);
              }
              assertThat(
                      hostileByOffset.entrySet().stream()
                          .filter(e -> !bySource.containsKey(e.getKey()))
                          .map(Map.Entry::getValue))
                  .as("hostile commands not rejected yet")
                  .isEmpty();
            });
    return bySource;
  }

  private static JsonNode awaitSuccess(TopicReader completed, String taskId) throws IOException {
    ConsumerRecord<String, byte[]> record =
        await()
            .atMost(Duration.ofSeconds(90))
            .until(
                () ->
                    completed.poll().stream()
                        .filter(r -> taskId.equals(r.key()))
                        .findFirst()
                        .orElse(null),
                r -> r != null);
    JsonNode event = AxJson.MAPPER.readTree(record.value());
    assertThat(event.get("status").asText()).as("status of %s", taskId).isEqualTo("SUCCESS");
    return event;
  }

  private static void assertOnTime(JsonNode run) {
    long dueAtMs = run.get("dueAtMs").asLong();
    assertThat(run.get("startedAtMs").asLong())
        .as("start of %s", run)
        .isGreaterThanOrEqualTo(dueAtMs);
    assertThat(run.get("lateMs").asLong())
        .as("lateness of %s", run)
        .isBetween(0L, LATENESS_TOLERANCE_MS);
  }

  /**
   * No WARN or ERROR line of AX's was logged twice since the stages started: no record is tried
   * again and again.
   */
  private void assertNoLineRepeats() {
    List<ILoggingEvent> events;
    synchronized (logged) { // AppenderBase appends under this lock
      events = new ArrayList<>(logged.list);
    }
    Map<String, Long> counts =
        events.stream()
            .filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
            .collect(
                Collectors.groupingBy(ILoggingEvent::getFormattedMessage, Collectors.counting()));
    assertThat(counts.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey))
        .as("WARN/ERROR lines logged more than once")
        .isEmpty();
  }

  private static String offsetOf(Map<String, String> hostileByOffset, String name) {
    return hostileByOffset.entrySet().stream()
        .filter(e -> e.getValue().equals(name))
        .map(Map.Entry::getKey)
        .findFirst()
        .orElseThrow();
  }

  private static byte[] valid(String taskId) {
    return utf8(
        "{\"v\":1,\"type\":\"CREATE\",\"taskId\":\""
            + taskId
            + "\",\"trigger\":{\"type\":\"ONCE\",\"delayMs\":"
            + VALID_DELAY_MS
            + "},\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"},\"timeoutMs\":5000}");
  }

  /** Not JSON at all, exactly {@code bytes} long. */
  private static byte[] invalidOfSize(int bytes) {
    byte[] value = new byte[bytes];
    Arrays.fill(value, (byte) 'x');
    return value;
  }

  /** An HTTP task whose every call is refused: retried once after 200 ms, then dead. */
  private static byte[] failing(String taskId, int port) {
    return utf8(
        "{\"v\":1,\"taskId\":\""
            + taskId
            + "\",\"trigger\":{\"type\":\"ONCE\",\"delayMs\":1000},\"executor\":{\"type\":\"HTTP\","
            + "\"url\":\"http://127.0.0.1:"
            + port
            + "/down\"},\"timeoutMs\":5000,"
            + "\"retry\":{\"maxRetries\":1,\"backoffBaseMs\":200,\"backoffMaxMs\":200}}");
  }

  /** A task that runs when {@code upstream} succeeded. */
  private static byte[] childOf(String taskId, String upstream) {
    return utf8(
        "{\"v\":1,\"taskId\":\""
            + taskId
            + "\",\"trigger\":{\"type\":\"DEPENDENCY\",\"upstream\":[\""
            + upstream
            + "\"]},\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"},\"timeoutMs\":5000}");
  }

  private static byte[] validWith(String field) {
    return utf8(
        "{\"v\":1,\"taskId\":\"hostile-field\",\"trigger\":{\"type\":\"ONCE\",\"delayMs\":1000},"
            + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"},\"timeoutMs\":5000,"
            + field
            + "}");
  }

  private static RecordMetadata send(
      KafkaProducer<byte[], byte[]> producer, String topic, String key, byte[] value)
      throws Exception {
    return producer.send(new ProducerRecord<>(topic, key == null ? null : utf8(key), value)).get();
  }

  private static String at(RecordMetadata sent) {
    return sent.partition() + "@" + sent.offset();
  }

  private static String header(ConsumerRecord<String, byte[]> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static KafkaProducer<byte[], byte[]> rawProducer(String bootstrap) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(2 * 1024 * 1024));
    return new KafkaProducer<>(props);
  }

  /** Every stage of one node, started, once their consumer groups hold their partitions. */
  private static RunningStages startAll(TestRuntime runtime, String node) {
    RunningStages stages =
        RunningStages.on(runtime, node).ingest().ticker().dispatcher().retries().resolver();
    try {
      runtime.awaitGroupsAssigned(1, "ingest", "dispatcher", "retry", "deadletter");
    } catch (RuntimeException e) {
      stages.close();
      throw e;
    }
    return stages;
  }
}
