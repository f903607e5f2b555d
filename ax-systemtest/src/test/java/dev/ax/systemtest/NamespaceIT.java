package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.kafka.RejectHeaders;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.Namespace;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.SwitchStore;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TopicReader;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.resolver.ResolverStage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Namespaces through the public contract: {@code ax namespace create}, commands on the namespace's
 * own topic, completion events and rejections on its own topics, the same task id in two namespaces
 * as two tasks, a flow inside a namespace, and names reaching into another namespace refused with
 * their reason.
 */
@ExtendWith(AxInfraExtension.class)
class NamespaceIT {

  /** The command rate of a namespace here: small, so a burst outruns it. */
  private static final int RATE = 50;

  private static final String NOOP =
      "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"},\"timeoutMs\":5000";

  @Test
  void eachNamespaceHasItsOwnTopicsTasksAndFlows(AxTestEnv env) throws Exception {
    Namespace billing = new Namespace("billing");
    try (TestRuntime runtime = TestRuntime.open(env);
        RunningStages stages =
            RunningStages.on(runtime, "node-1")
                .ingest(Map.of("AX_MAX_COMMANDS_PER_SECOND_PER_NAMESPACE", String.valueOf(RATE)))
                .ticker()
                .resolver()
                .dispatcher();
        KafkaProducer<String, byte[]> producer = UserClients.producer(runtime);
        CliRun.Target cli = CliRun.pointAt(env, runtime)) {
      runtime.awaitGroupsAssigned(1, "ingest", "dispatcher");
      await().atMost(Duration.ofSeconds(60)).until(stages.get(ResolverStage.class)::isRunning);

      // Before the namespace exists, its commands are refused on its rejected topic.
      CliRun early = CliRun.ax("namespace", "list");
      assertThat(early.okOut()).contains("default").doesNotContain("billing");
      CliRun created = CliRun.ax("namespace", "create", "billing", "--tenant", "User:alice");
      assertThat(created.okOut())
          .contains("namespace billing created")
          .contains(runtime.topics().commands(billing))
          .contains("--allow-principal User:alice --operation Write");
      assertThat(CliRun.ax("namespace", "create", "billing").okOut()).contains("exists already");
      assertThat(CliRun.ax("namespace", "list").okOut()).contains("billing");
      assertThat(CliRun.ax("namespace", "create", "Bad_Name").exitCode()).isNotZero();

      try (TopicReader billingDone =
              new TopicReader(runtime.bootstrapServers(), runtime.topics().completed(billing));
          TopicReader billingRejected =
              new TopicReader(
                  runtime.bootstrapServers(), runtime.topics().commandsRejected(billing));
          TopicReader defaultDone = UserClients.completed(runtime)) {
        // The same task id in both namespaces: two tasks, each event on its own topic.
        send(producer, runtime.topics().commands(billing), "job", once("job", 5_000));
        send(producer, runtime.topics().commands(), "job", once("job", 300));
        TaskStore tasks = new TaskStore(runtime.dataSource());
        await().atMost(Duration.ofSeconds(30)).until(() -> tasks.find("billing~job").isPresent());
        // A flow inside the namespace: upstream by its plain id.
        send(
            producer,
            runtime.topics().commands(billing),
            "after",
            "{\"v\":1,\"taskId\":\"after\",\"trigger\":{\"type\":\"DEPENDENCY\","
                + "\"upstream\":[\"job\"]},"
                + NOOP
                + "}");
        await().atMost(Duration.ofSeconds(30)).until(() -> tasks.find("billing~after").isPresent());
        // Names reaching into another namespace, or the record key of another: refused.
        send(
            producer,
            runtime.topics().commands(billing),
            "thief",
            "{\"v\":1,\"taskId\":\"thief\",\"trigger\":{\"type\":\"DEPENDENCY\","
                + "\"upstream\":[\"other~job\"]},"
                + NOOP
                + "}");
        send(
            producer,
            runtime.topics().commands(billing),
            "default~job",
            "{\"v\":1,\"type\":\"CANCEL\",\"taskId\":\"default~job\"}");

        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> billingDone.poll().size() >= 2 && !defaultDone.poll().isEmpty());
        List<TaskCompletedEvent> inBilling = events(billingDone.poll());
        assertThat(inBilling)
            .extracting(TaskCompletedEvent::taskId)
            .containsExactlyInAnyOrder("job", "after");
        assertThat(inBilling)
            .allSatisfy(
                e -> {
                  assertThat(e.namespace()).isEqualTo("billing");
                  assertThat(e.status()).isEqualTo(InstanceStatus.SUCCESS);
                  assertThat(e.instanceId()).startsWith("billing~");
                });
        assertThat(billingDone.poll()).extracting(ConsumerRecord::key).contains("job", "after");
        List<TaskCompletedEvent> inDefault = events(defaultDone.poll());
        assertThat(inDefault).extracting(TaskCompletedEvent::taskId).containsExactly("job");
        assertThat(inDefault.get(0).namespace()).isEqualTo("default");
        assertThat(inDefault.get(0).instanceId()).startsWith("job@");

        await().atMost(Duration.ofSeconds(30)).until(() -> billingRejected.poll().size() >= 2);
        assertThat(billingRejected.poll())
            .extracting(NamespaceIT::reason)
            .anySatisfy(r -> assertThat(r).contains("trigger.upstream", "names another namespace"))
            .anySatisfy(r -> assertThat(r).contains("taskId", "names another namespace"));
        assertThat(tasks.find("thief").isPresent() || tasks.find("billing~thief").isPresent())
            .isFalse();

        // One namespace's intake off: its commands wait in Kafka, the default one's go on.
        assertThat(CliRun.ax("switch", "intake.billing", "off").okOut()).contains("set to off");
        SwitchStore switches = new SwitchStore(runtime.dataSource());
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    switches.applied().stream()
                        .anyMatch(
                            a ->
                                a.name().equals("intake.billing") && a.stage().contains("ingest")));
        // A poll begun before the switch applied may still return what arrives meanwhile: once a
        // command sent after it is stored, every later poll began with billing paused.
        send(producer, runtime.topics().commands(), "fence", once("fence", 100));
        await().atMost(Duration.ofSeconds(30)).until(() -> tasks.find("fence").isPresent());
        send(producer, runtime.topics().commands(billing), "held", once("held", 100));
        send(producer, runtime.topics().commands(), "passes", once("passes", 100));
        await().atMost(Duration.ofSeconds(30)).until(() -> tasks.find("passes").isPresent());
        send(producer, runtime.topics().commands(), "passes-too", once("passes-too", 100));
        await().atMost(Duration.ofSeconds(30)).until(() -> tasks.find("passes-too").isPresent());
        assertThat(tasks.find("billing~held"))
            .as("held in Kafka while billing's intake is off")
            .isEmpty();
        assertThat(CliRun.ax("switch", "intake.billing", "on").okOut()).contains("set to on");
        await().atMost(Duration.ofSeconds(30)).until(() -> tasks.find("billing~held").isPresent());

        // A namespace's dispatch off: its due instances wait unclaimed, the default one's run.
        assertThat(CliRun.ax("switch", "dispatch.billing~*", "off").okOut()).contains("set to off");
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    switches.applied().stream()
                        .anyMatch(
                            a ->
                                a.name().equals("dispatch.billing~*")
                                    && a.stage().contains("dispatcher")));
        send(producer, runtime.topics().commands(billing), "parked", once("parked", 100));
        send(producer, runtime.topics().commands(), "runs", once("runs", 100));
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> events(defaultDone.poll()).stream().anyMatch(e -> e.taskId().equals("runs")));
        InstanceStore instances = new InstanceStore(runtime.dataSource());
        assertThat(instances.findByTask("billing~parked"))
            .as("billing's instance waits unclaimed while its dispatch is off")
            .allSatisfy(
                i ->
                    assertThat(i.status())
                        .isIn(InstanceStatus.SCHEDULED, InstanceStatus.DISPATCHED));
        assertThat(CliRun.ax("switch", "dispatch.billing~*", "on").okOut()).contains("set to on");
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    events(billingDone.poll()).stream().anyMatch(e -> e.taskId().equals("parked")));

        // Over its command rate a namespace waits (nothing refused). A poll may read one batch
        // (at most 200) past the rate, so a burst of 300 at 50/s must wait for its debt.
        int burst = 300;
        for (int i = 0; i < burst; i++) {
          producer.send(
              new ProducerRecord<>(
                  runtime.topics().commands(billing),
                  "burst-" + i,
                  once("burst-" + i, 60_000).getBytes(StandardCharsets.UTF_8)));
        }
        producer.flush();
        Jdbc jdbc = new Jdbc(runtime.dataSource());
        String burstTasks = " FROM ax_task WHERE task_id LIKE 'billing~burst-%'";
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () ->
                    jdbc.queryLong("counting", "SELECT COUNT(*)" + burstTasks, Jdbc.Binder.values())
                        == burst);
        long spreadMs =
            jdbc.queryLong(
                "the burst's spread",
                "SELECT MAX(created_at_ms) - MIN(created_at_ms)" + burstTasks,
                Jdbc.Binder.values());
        assertThat(spreadMs)
            .as("%d commands at %d/s, at most a second's worth and a batch at once", burst, RATE)
            .isGreaterThanOrEqualTo(1_000);
        assertThat(billingRejected.poll()).hasSize(2);

        // A commands topic of no created namespace: its record is rejected onto the default
        // rejected topic (its own does not exist), and ingest goes on.
        try (org.apache.kafka.clients.admin.Admin admin =
                dev.ax.common.kafka.KafkaClients.admin(runtime.kafka());
            TopicReader defaultRejected = UserClients.rejected(runtime)) {
          String stray = runtime.topics().commands(new Namespace("stray"));
          admin
              .createTopics(
                  List.of(new org.apache.kafka.clients.admin.NewTopic(stray, 1, (short) 1)))
              .all()
              .get(30, java.util.concurrent.TimeUnit.SECONDS);
          // Read from its start once the pattern subscription finds the topic (within 10 s).
          send(producer, stray, "s", once("s", 100));
          await()
              .atMost(Duration.ofSeconds(30))
              .until(
                  () ->
                      defaultRejected.poll().stream()
                          .map(NamespaceIT::reason)
                          .anyMatch(r -> r.contains("namespace stray does not exist")));
          send(producer, runtime.topics().commands(), "after-stray", once("after-stray", 100));
          await().atMost(Duration.ofSeconds(30)).until(() -> tasks.find("after-stray").isPresent());
        }

        // ax submit sends to the namespace's topic.
        assertThat(
                CliRun.ax(
                        "submit",
                        "--namespace",
                        "billing",
                        "--task-id",
                        "cli-1",
                        "--delay",
                        "1m",
                        "--handler",
                        "noop")
                    .okOut())
            .contains(runtime.topics().commands(billing));
        await().atMost(Duration.ofSeconds(30)).until(() -> tasks.find("billing~cli-1").isPresent());

        // The CLI on the database takes a stored id and sends to that namespace's topic.
        assertThat(CliRun.ax("task", "pause", "billing~burst-0", "--reason", "test").okOut())
            .contains(runtime.topics().commands(billing));
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    tasks.find("billing~burst-0").orElseThrow().state()
                        == dev.ax.common.model.TaskState.PAUSED);
      }
    }
  }

  private static String once(String taskId, long delayMs) {
    return "{\"v\":1,\"taskId\":\""
        + taskId
        + "\",\"trigger\":{\"type\":\"ONCE\",\"delayMs\":"
        + delayMs
        + "},"
        + NOOP
        + "}";
  }

  private static void send(
      KafkaProducer<String, byte[]> producer, String topic, String key, String json)
      throws Exception {
    producer.send(new ProducerRecord<>(topic, key, json.getBytes(StandardCharsets.UTF_8))).get();
  }

  private static List<TaskCompletedEvent> events(List<ConsumerRecord<String, byte[]>> records) {
    return records.stream().map(r -> AxJson.read(r.value(), TaskCompletedEvent.class)).toList();
  }

  private static String reason(ConsumerRecord<String, byte[]> record) {
    return new String(
        record.headers().lastHeader(RejectHeaders.REASON).value(), StandardCharsets.UTF_8);
  }
}
