package dev.ax.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.DependencyEntry;
import dev.ax.common.contract.TaskScheduledEvent;
import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.kafka.RejectHeaders;
import dev.ax.common.stage.StageContext;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.RawSql;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TopicReader;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import io.micrometer.core.instrument.Counter;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(AxInfraExtension.class)
class IngestStageIT {

  private static final Duration DEADLINE = Duration.ofSeconds(30);

  private TestRuntime runtime;
  private StageContext context;
  private IngestStage ingest;
  private KafkaProducer<String, byte[]> producer;

  @BeforeEach
  void setUp(AxTestEnv env) {
    runtime = TestRuntime.open(env);
    context = runtime.context("ingest-1");
    ingest = new IngestStage(context, IngestConfig.from(runtime.config())).start();
    producer = KafkaClients.producer(runtime.kafka(), "test-producer");
  }

  @AfterEach
  void tearDown() {
    producer.close();
    ingest.close();
    runtime.close();
  }

  private void send(String key, String json) throws Exception {
    producer
        .send(
            new ProducerRecord<>(
                runtime.topics().commands(), key, json.getBytes(StandardCharsets.UTF_8)))
        .get();
  }

  private static String command(String taskId, long delayMs) {
    return """
        {"v":1,"taskId":"%s","trigger":{"type":"ONCE","delayMs":%d},
         "executor":{"type":"IN_PROCESS","handler":"noop"},"timeoutMs":5000}
        """
        .formatted(taskId, delayMs);
  }

  @Test
  void aDuplicateCreateMakesOneTask() throws Exception {
    send("dup", command("dup", 60_000));
    send("dup", command("dup", 60_000));
    send("dup", command("dup", 120_000));
    send("other", command("other", 60_000));

    awaitCounted(context, 4, "ax.ingest.created.tasks", "ax.ingest.duplicates");
    assertThat(new TaskStore(runtime.dataSource()).find("dup")).isPresent();
    assertThat(new InstanceStore(runtime.dataSource()).findByTask("dup")).hasSize(1);
    assertThat(new InstanceStore(runtime.dataSource()).findByTask("other")).hasSize(1);
    assertThat(context.meters().counter("ax.ingest.duplicates").count()).isEqualTo(2);
  }

  @Test
  void badMessagesGoToTheRejectedTopicWithAReasonAndTheOriginalBytes() throws Exception {
    Map<String, String> bad = new LinkedHashMap<>();
    bad.put("malformed", "{\"v\":1,\"taskId\":");
    bad.put(
        "missing-field",
        "{\"v\":1,\"trigger\":{\"type\":\"ONCE\",\"delayMs\":1},\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"}}");
    bad.put(
        "unknown-executor",
        "{\"v\":1,\"taskId\":\"x\",\"trigger\":{\"type\":\"ONCE\",\"delayMs\":1},\"executor\":{\"type\":\"FTP\"}}");
    bad.put("negative-delay", command("neg", -5));
    // Read fine, rejected by ingest: keyed by their taskIds, as a mismatched key is rejected first.
    bad.put(
        "unknown-upstream",
        "{\"v\":1,\"taskId\":\"unknown-upstream\",\"trigger\":{\"type\":\"DEPENDENCY\",\"upstream\":[\"a\"]},"
            + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"}}");
    bad.put(
        "cycle",
        "{\"v\":1,\"taskId\":\"cycle\",\"trigger\":{\"type\":\"DEPENDENCY\",\"upstream\":[\"cycle\"]},"
            + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"}}");
    bad.put(
        "bad-cron",
        "{\"v\":1,\"taskId\":\"c\",\"trigger\":{\"type\":\"CRON\",\"expression\":\"0 0 25 * * ?\"},"
            + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"}}");
    for (Map.Entry<String, String> entry : bad.entrySet()) {
      send(entry.getKey(), entry.getValue());
    }
    send("good", command("good", 1000));

    try (TopicReader rejected =
        new TopicReader(runtime.bootstrapServers(), runtime.topics().commandsRejected())) {
      await().atMost(DEADLINE).until(() -> rejected.poll().size() >= bad.size());
      Map<String, String> reasons = new LinkedHashMap<>();
      for (ConsumerRecord<String, byte[]> record : rejected.poll()) {
        assertThat(new String(record.value(), StandardCharsets.UTF_8))
            .isEqualTo(bad.get(record.key()));
        reasons.put(record.key(), header(record, RejectHeaders.REASON));
        assertThat(record.headers().lastHeader(RejectHeaders.SOURCE_TOPIC)).isNotNull();
      }
      assertThat(reasons)
          .hasSize(bad.size())
          .hasEntrySatisfying("malformed", r -> assertThat(r).startsWith("malformed JSON"))
          .hasEntrySatisfying(
              "missing-field", r -> assertThat(r).isEqualTo("missing field 'taskId'"))
          .hasEntrySatisfying(
              "unknown-executor", r -> assertThat(r).contains("unknown executor type 'FTP'"))
          .hasEntrySatisfying(
              "negative-delay", r -> assertThat(r).contains("delayMs must not be negative: -5"))
          .hasEntrySatisfying(
              "unknown-upstream",
              r -> assertThat(r).isEqualTo("dependency names unknown upstream task(s) [a]"))
          .hasEntrySatisfying(
              "cycle",
              r -> assertThat(r).isEqualTo("dependency would close a cycle: cycle -> cycle"))
          .hasEntrySatisfying(
              "bad-cron", r -> assertThat(r).contains("not a valid Quartz cron expression"));
    }
    await()
        .atMost(DEADLINE)
        .until(() -> new TaskStore(runtime.dataSource()).find("good").isPresent());
    assertThat(rejectedCount("invalid")).as("malformed, missing field, bad values").isEqualTo(5);
    assertThat(rejectedCount("unsupported")).as("unknown upstream, cycle").isEqualTo(2);
    assertThat(rejectedCount("invalid") + rejectedCount("unsupported")).isEqualTo(bad.size());
  }

  private double rejectedCount(String reasonClass) {
    return context.meters().get("ax.ingest.rejected").tag("reason", reasonClass).counter().count();
  }

  @Test
  void theDependencyGraphIsPublishedAndAStaleEntryIsRepairedByTheRepublish() throws Exception {
    try (IngestStage republishing =
        new IngestStage(
                runtime.context("ingest-2"),
                IngestConfig.from(runtime.config(Map.of("AX_DEPENDENCY_REPUBLISH", "1s"))))
            .start()) {
      send("up", command("up", 60_000));
      await()
          .atMost(DEADLINE)
          .until(() -> new TaskStore(runtime.dataSource()).find("up").isPresent());
      send(
          "down",
          "{\"v\":1,\"taskId\":\"down\",\"trigger\":{\"type\":\"DEPENDENCY\",\"upstream\":[\"up\"]},"
              + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"}}");
      try (TopicReader graph =
          new TopicReader(runtime.bootstrapServers(), runtime.topics().dependencies())) {
        await().atMost(DEADLINE).until(() -> !graph.poll().isEmpty());
        DependencyEntry entry = AxJson.read(graph.poll().get(0).value(), DependencyEntry.class);
        assertThat(entry.upstreamTaskId()).isEqualTo("up");
        assertThat(entry.downstreams())
            .containsExactly(new DependencyEntry.Downstream("down", List.of("up")));

        // A stale entry lands last (two replicas out of order): the republish repairs it.
        producer
            .send(
                new ProducerRecord<>(
                    runtime.topics().dependencies(),
                    "up",
                    AxJson.write(new DependencyEntry(1, "up", List.of()))))
            .get();
        await()
            .atMost(DEADLINE)
            .until(
                () -> {
                  List<ConsumerRecord<String, byte[]>> records = graph.poll();
                  return records.size() > 2
                      && !AxJson.read(
                              records.get(records.size() - 1).value(), DependencyEntry.class)
                          .downstreams()
                          .isEmpty();
                });
      }
    }
  }

  @Test
  void instancesDueSoonAreAnnouncedToTheTicker() throws Exception {
    send("soon", command("soon", 2000));

    try (TopicReader scheduled =
        new TopicReader(runtime.bootstrapServers(), runtime.topics().scheduled())) {
      await().atMost(DEADLINE).until(() -> !scheduled.poll().isEmpty());
      List<ConsumerRecord<String, byte[]>> records = scheduled.poll();
      TaskScheduledEvent event = AxJson.read(records.get(0).value(), TaskScheduledEvent.class);
      assertThat(event.taskId()).isEqualTo("soon");
      assertThat(event.instanceId()).isEqualTo("soon@" + event.dueAtMs());
      assertThat(records.get(0).headers().lastHeader(RejectHeaders.TRACE_ID)).isNotNull();
    }
  }

  @Test
  void aRecordKeyOtherThanTheTaskIdIsRejectedAndNoKeyIsAccepted() throws Exception {
    send("k", command("t", 60_000));
    send(null, command("keyless", 60_000));

    try (TopicReader rejected =
        new TopicReader(runtime.bootstrapServers(), runtime.topics().commandsRejected())) {
      await().atMost(DEADLINE).until(() -> !rejected.poll().isEmpty());
      ConsumerRecord<String, byte[]> record = rejected.poll().get(0);
      assertThat(record.key()).isEqualTo("k");
      assertThat(header(record, RejectHeaders.REASON))
          .isEqualTo("record key 'k' does not match taskId 't'");
    }
    await()
        .atMost(DEADLINE)
        .until(() -> new TaskStore(runtime.dataSource()).find("keyless").isPresent());
    assertThat(new TaskStore(runtime.dataSource()).find("t")).isEmpty();
  }

  /**
   * The rejected topic takes smaller records than the commands topic here, so the broker refuses
   * the echo (RecordTooLargeException): the rejection goes without its value, and ingest moves on.
   */
  @Test
  void aRejectionTooLargeForTheRejectedTopicIsSentWithoutItsValue() throws Exception {
    try (Admin admin = KafkaClients.admin(runtime.kafka())) {
      admin
          .incrementalAlterConfigs(
              Map.of(
                  new ConfigResource(
                      ConfigResource.Type.TOPIC, runtime.topics().commandsRejected()),
                  List.of(
                      new AlterConfigOp(
                          new ConfigEntry("max.message.bytes", "10000"),
                          AlterConfigOp.OpType.SET))))
          .all()
          .get();
      ConfigResource topic =
          new ConfigResource(ConfigResource.Type.TOPIC, runtime.topics().commandsRejected());
      // The broker applies a topic config change from its metadata log: wait until it has.
      await()
          .atMost(DEADLINE)
          .until(
              () ->
                  "10000"
                      .equals(
                          admin
                              .describeConfigs(List.of(topic))
                              .all()
                              .get()
                              .get(topic)
                              .get("max.message.bytes")
                              .value()));
    }
    String large = "{\"v\":1,\"taskId\":\"large\",\"pad\":\"" + "p".repeat(20_000);
    byte[] largeBytes = large.getBytes(StandardCharsets.UTF_8);

    send("large", large);
    send("after-large", command("after-large", 60_000));

    try (TopicReader rejected =
        new TopicReader(runtime.bootstrapServers(), runtime.topics().commandsRejected())) {
      await().atMost(DEADLINE).until(() -> !rejected.poll().isEmpty());
      ConsumerRecord<String, byte[]> record = rejected.poll().get(0);
      assertThat(record.key()).isEqualTo("large");
      assertThat(record.value()).isNull();
      assertThat(header(record, RejectHeaders.REASON)).startsWith("malformed JSON");
      assertThat(header(record, RejectHeaders.VALUE_BYTES))
          .isEqualTo(Integer.toString(largeBytes.length));
      assertThat(header(record, RejectHeaders.VALUE_SHA256))
          .isEqualTo(
              HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(largeBytes)));
    }
    await()
        .atMost(DEADLINE)
        .until(() -> new TaskStore(runtime.dataSource()).find("after-large").isPresent());
  }

  /**
   * Waits until the {@code counters} of {@code stage}'s meters (every series of each name) add up
   * to {@code total}.
   */
  private static void awaitCounted(StageContext stage, int total, String... counters) {
    await()
        .atMost(DEADLINE)
        .until(
            () ->
                Arrays.stream(counters)
                        .flatMap(c -> stage.meters().find(c).counters().stream())
                        .mapToDouble(Counter::count)
                        .sum()
                    == total);
  }

  private static String header(ConsumerRecord<String, byte[]> record, String name) {
    return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
  }

  @Test
  void aCreateBeyondTheGroupsLiveTaskLimitIsRejectedAndEndedTasksDoNotCount() throws Exception {
    ingest.close(); // this test's ingest runs with a low limit
    StageContext limited = runtime.context("ingest-limited");
    ingest =
        new IngestStage(
                limited,
                IngestConfig.from(runtime.config(Map.of("AX_MAX_ACTIVE_TASKS_PER_GROUP", "3"))))
            .start();
    for (int i = 0; i < 5; i++) {
      send("capped-" + i, inGroup("capped-" + i, "capped"));
    }
    send("free-0", inGroup("free-0", "free"));

    try (TopicReader rejected =
        new TopicReader(runtime.bootstrapServers(), runtime.topics().commandsRejected())) {
      awaitCounted(limited, 6, "ax.ingest.created.tasks", "ax.ingest.rejected");
      await().atMost(DEADLINE).until(() -> rejected.poll().size() >= 2);
      List<String> reasons =
          rejected.poll().stream().map(r -> header(r, RejectHeaders.REASON)).toList();
      assertThat(reasons)
          .containsExactly(
              "group 'capped' has 3 active tasks, the limit is 3 (AX_MAX_ACTIVE_TASKS_PER_GROUP)",
              "group 'capped' has 3 active tasks, the limit is 3 (AX_MAX_ACTIVE_TASKS_PER_GROUP)");
    }
    assertThat(
            limited.meters().find("ax.ingest.created.tasks").counters().stream()
                .mapToDouble(c -> c.count())
                .sum())
        .isEqualTo(4);
    assertThat(new TaskStore(runtime.dataSource()).countActiveByGroup(List.of("capped", "free")))
        .containsEntry("capped", 3L)
        .containsEntry("free", 1L);

    // Ended one-shot tasks are history, not live: the group takes new tasks again.
    RawSql.execute(
        runtime.dataSource(), "UPDATE ax_task SET state = 'ENDED' WHERE task_group = 'capped'");
    for (int i = 5; i < 8; i++) {
      send("capped-" + i, inGroup("capped-" + i, "capped"));
    }
    awaitCounted(limited, 9, "ax.ingest.created.tasks", "ax.ingest.rejected");
    assertThat(
            limited.meters().find("ax.ingest.created.tasks").counters().stream()
                .mapToDouble(c -> c.count())
                .sum())
        .isEqualTo(7);
    assertThat(new TaskStore(runtime.dataSource()).countActiveByGroup(List.of("capped")))
        .containsEntry("capped", 3L);
  }

  private static String inGroup(String taskId, String group) {
    return """
        {"v":1,"taskId":"%s","group":"%s","trigger":{"type":"ONCE","delayMs":600000},
         "executor":{"type":"IN_PROCESS","handler":"noop"},"timeoutMs":5000}
        """
        .formatted(taskId, group);
  }

  /**
   * Values that overflowed used to fail the whole batch, over and over: a ONCE delay of
   * Long.MAX_VALUE ms (ArithmeticException) and a long valid cron whose trigger-group key did not
   * fit its column. Now each is either stored or rejected on its own, and the rest of the batch is
   * stored. (Whether the command reader rejects them first is its business, not this test's.)
   */
  @Test
  void valuesThatOverflowNeitherThrowNorFailTheBatch() throws Exception {
    String longCron =
        String.join(
            " ",
            list(0, 59),
            list(0, 59),
            list(0, 23),
            list(1, 31),
            list(1, 12),
            "?",
            list(2026, 2099));
    send("forever", command("forever", Long.MAX_VALUE));
    send(
        "long-cron",
        """
        {"v":1,"taskId":"long-cron","trigger":{"type":"CRON","expression":"%s"},
         "executor":{"type":"IN_PROCESS","handler":"noop"},"timeoutMs":5000}
        """
            .formatted(longCron));
    send("after", command("after", 60_000));

    awaitCounted(context, 3, "ax.ingest.created.tasks", "ax.ingest.rejected");
    TaskStore tasks = new TaskStore(runtime.dataSource());
    assertThat(tasks.find("after")).isPresent();
    assertThat(tasks.find("forever")).as("a ONCE that never fires is not stored").isEmpty();
  }

  private static String list(int from, int to) {
    StringBuilder values = new StringBuilder();
    for (int v = from; v <= to; v++) {
      values.append(v == from ? "" : ",").append(v);
    }
    return values.toString();
  }
}
