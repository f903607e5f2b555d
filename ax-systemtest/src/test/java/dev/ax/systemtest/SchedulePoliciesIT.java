package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.OverlapPolicy;
import dev.ax.common.model.ScheduleRules;
import dev.ax.common.schedule.Jitter;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TopicReader;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 42's schedule options through the whole pipeline (ingest, ticker, dispatcher), observed on
 * the public contract: the completion events and the instance rows. Each overlap policy against a
 * task whose runs outlast its period, a catch-up window after a pause, jitter, start and end.
 */
@ExtendWith(AxInfraExtension.class)
class SchedulePoliciesIT {

  /** Periods shorter than AX_MIN_INTERVAL's default (1 s) keep this test fast. */
  private static final Map<String, String> FAST_PERIODS = Map.of("AX_MIN_INTERVAL", "100ms");

  /** A resumed firing 1 s late is a misfire here, so the catch-up window decides. */
  private static final Map<String, String> QUICK_MISFIRE =
      Map.of("AX_TICKER_MISFIRE_THRESHOLD", "1s");

  @Test
  void everyScheduleOptionBehavesAsDocumented(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env);
        RunningStages stages =
            RunningStages.on(runtime, "node-1")
                .ingest(FAST_PERIODS)
                .ticker(QUICK_MISFIRE)
                .dispatcher()) {
      runtime.awaitGroupsAssigned(1, "ingest", "dispatcher");
      long now = runtime.clock().millis();
      long endAt = now + 3_000;
      long startAt = (now / 1000 + 5) * 1000;
      Map<String, String> commands = new LinkedHashMap<>();
      commands.put("skip", sleeping("skip", 500, 1200, "\"overlap\":\"SKIP\""));
      commands.put("buf1", sleeping("buf1", 500, 1200, "\"overlap\":\"BUFFER_ONE\""));
      commands.put("bufall", sleeping("bufall", 1000, 1400, "\"overlap\":\"BUFFER_ALL\""));
      commands.put("cancel", sleeping("cancel", 1000, 4000, "\"overlap\":\"CANCEL_OTHER\""));
      commands.put("all", sleeping("all", 500, 1200, "\"overlap\":\"ALLOW_ALL\""));
      commands.put(
          "jit",
          "{\"v\":1,\"taskId\":\"jit\",\"trigger\":{\"type\":\"CRON\",\"expression\":\"* * * * *"
              + " ?\"},\"jitterMs\":700,\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"}}");
      commands.put(
          "ends",
          "{\"v\":1,\"taskId\":\"ends\",\"trigger\":{\"type\":\"FIXED_RATE\",\"intervalMs\":500,"
              + "\"endAtMs\":"
              + endAt
              + "},\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"}}");
      commands.put(
          "starts",
          "{\"v\":1,\"taskId\":\"starts\",\"trigger\":{\"type\":\"CRON\",\"expression\":\"* * * *"
              + " * ?\",\"startAtMs\":"
              + startAt
              + "},\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"}}");
      commands.put(
          "window",
          "{\"v\":1,\"taskId\":\"window\",\"trigger\":{\"type\":\"FIXED_RATE\",\"intervalMs\":500},"
              + "\"catchUpWindowMs\":500,\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"}}");
      List<TaskCompletedEvent> events = new ArrayList<>();
      try (KafkaProducer<String, byte[]> producer =
              dev.ax.common.kafka.KafkaClients.producer(runtime.kafka(), "user");
          TopicReader completed =
              new TopicReader(runtime.bootstrapServers(), runtime.topics().completed())) {
        for (Map.Entry<String, String> command : commands.entrySet()) {
          send(producer, runtime, command.getKey(), command.getValue());
        }
        // The window task: paused after its first run, resumed 3 s later, its held firing late.
        await().atMost(Duration.ofSeconds(30)).until(() -> poll(completed, events, "window", 1));
        send(producer, runtime, "window", "{\"v\":1,\"type\":\"PAUSE\",\"taskId\":\"window\"}");
        InstanceStore instances = new InstanceStore(runtime.dataSource());
        await()
            .atMost(Duration.ofSeconds(10))
            .until(
                () ->
                    instances.findByTask("window").stream()
                        .anyMatch(row -> row.status() == InstanceStatus.PAUSED));
        long pausedAt = runtime.clock().millis();
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> runtime.clock().millis() - pausedAt >= 3_000);
        send(producer, runtime, "window", "{\"v\":1,\"type\":\"RESUME\",\"taskId\":\"window\"}");

        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () ->
                    poll(completed, events, null, 0)
                        && count(events, "skip", InstanceStatus.SKIPPED) >= 1
                        && count(events, "buf1", InstanceStatus.SUCCESS) >= 3
                        && count(events, "buf1", InstanceStatus.SKIPPED) >= 1
                        && count(events, "bufall", InstanceStatus.SUCCESS) >= 4
                        && count(events, "cancel", InstanceStatus.CANCELLED) >= 2
                        && count(events, "all", InstanceStatus.SUCCESS) >= 4
                        && count(events, "jit", InstanceStatus.SUCCESS) >= 3
                        && count(events, "starts", InstanceStatus.SUCCESS) >= 1
                        && count(events, "window", InstanceStatus.SKIPPED) >= 1
                        && runtime.clock().millis() > endAt + 1_000);
      }

      assertThat(reasons(events, "skip", InstanceStatus.SKIPPED))
          .allSatisfy(reason -> assertThat(reason).startsWith("overlap: "));
      assertNeverOverlaps(events, "skip");

      assertNeverOverlaps(events, "buf1");
      assertThat(reasons(events, "buf1", InstanceStatus.SKIPPED))
          .allSatisfy(reason -> assertThat(reason).contains("buffer full"));
      assertThat(runs(events, "buf1"))
          .as("a held firing runs once the previous run ended, late")
          .anySatisfy(run -> assertThat(run.startedAtMs() - run.dueAtMs()).isGreaterThan(300));

      assertNeverOverlaps(events, "bufall");
      assertThat(count(events, "bufall", InstanceStatus.SKIPPED)).as("nothing dropped").isZero();

      assertThat(count(events, "cancel", InstanceStatus.SUCCESS))
          .as("each run is cancelled by the next firing before it ends")
          .isZero();
      assertThat(reasons(events, "cancel", InstanceStatus.CANCELLED))
          .allSatisfy(reason -> assertThat(reason).startsWith("overlap: cancelled"));

      List<TaskCompletedEvent> all = runs(events, "all");
      boolean overlapped = false;
      for (int i = 1; i < all.size(); i++) {
        overlapped |= all.get(i).startedAtMs() < all.get(i - 1).finishedAtMs();
      }
      assertThat(overlapped).as("ALLOW_ALL runs overlap").isTrue();

      ScheduleRules jitter =
          new ScheduleRules(OverlapPolicy.SKIP, null, Duration.ofMillis(700), false, List.of());
      assertThat(runs(events, "jit"))
          .allSatisfy(
              run -> {
                long slot = InstanceIds.slotOf(run.instanceId());
                assertThat(run.dueAtMs()).isEqualTo(Jitter.dueAtMs("jit", slot, jitter));
                assertThat(run.startedAtMs()).isGreaterThanOrEqualTo(run.dueAtMs());
              });

      List<InstanceRow> ends = new InstanceStore(runtime.dataSource()).findByTask("ends");
      assertThat(ends)
          .isNotEmpty()
          .allSatisfy(
              row -> assertThat(InstanceIds.slotOf(row.instanceId())).isLessThanOrEqualTo(endAt))
          .noneSatisfy(row -> assertThat(row.status()).isEqualTo(InstanceStatus.SCHEDULED));

      assertThat(runs(events, "starts"))
          .allSatisfy(run -> assertThat(run.dueAtMs()).isGreaterThanOrEqualTo(startAt));

      assertThat(reasons(events, "window", InstanceStatus.SKIPPED))
          .anySatisfy(reason -> assertThat(reason).startsWith("missed: "));
    }
  }

  private static String sleeping(String taskId, long periodMs, long sleepMs, String overlap) {
    return "{\"v\":1,\"taskId\":\""
        + taskId
        + "\",\"trigger\":{\"type\":\"FIXED_RATE\",\"intervalMs\":"
        + periodMs
        + "},"
        + overlap
        + ",\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"sleep\"},\"params\":{\"sleepMs\":"
        + sleepMs
        + "},\"timeoutMs\":10000}";
  }

  private static void send(
      KafkaProducer<String, byte[]> producer, TestRuntime runtime, String key, String json)
      throws Exception {
    producer
        .send(
            new ProducerRecord<>(
                runtime.topics().commands(), key, json.getBytes(StandardCharsets.UTF_8)))
        .get();
  }

  /**
   * Reads everything that arrived so far into {@code events}; true when {@code taskId} (null: any)
   * has at least {@code n} events.
   */
  private static boolean poll(
      TopicReader completed, List<TaskCompletedEvent> events, String taskId, int n) {
    events.clear();
    completed.poll().forEach(r -> events.add(AxJson.read(r.value(), TaskCompletedEvent.class)));
    return events.stream().filter(e -> taskId == null || e.taskId().equals(taskId)).count() >= n;
  }

  private static long count(List<TaskCompletedEvent> events, String taskId, InstanceStatus status) {
    return events.stream().filter(e -> e.taskId().equals(taskId) && e.status() == status).count();
  }

  private static List<String> reasons(
      List<TaskCompletedEvent> events, String taskId, InstanceStatus status) {
    return events.stream()
        .filter(e -> e.taskId().equals(taskId) && e.status() == status)
        .map(TaskCompletedEvent::error)
        .toList();
  }

  private static List<TaskCompletedEvent> runs(List<TaskCompletedEvent> events, String taskId) {
    return events.stream()
        .filter(e -> e.taskId().equals(taskId) && e.status() == InstanceStatus.SUCCESS)
        .sorted(Comparator.comparingLong(TaskCompletedEvent::startedAtMs))
        .toList();
  }

  private static void assertNeverOverlaps(List<TaskCompletedEvent> events, String taskId) {
    List<TaskCompletedEvent> runs = runs(events, taskId);
    for (int i = 1; i < runs.size(); i++) {
      assertThat(runs.get(i).startedAtMs())
          .as("%s never overlaps itself: %s", taskId, runs)
          .isGreaterThanOrEqualTo(runs.get(i - 1).finishedAtMs());
    }
  }
}
