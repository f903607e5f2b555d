package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.AuditLog;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TopicReader;
import dev.ax.dispatcher.DispatcherMain;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.resolver.ResolverStage;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Sharding broadcast across dispatcher processes: a task with {@code "sharding": {"total": 5}} on
 * three dispatcher JVMs runs each shard exactly once with its index, its firing ends once with an
 * aggregate completion, and a dependent task fires once, after the last shard; a firing with a
 * shard that fails for good ends DEAD naming that shard, and its dependent never fires.
 */
@ExtendWith(AxInfraExtension.class)
class ShardingIT {

  /** One call the test's endpoint received. */
  private record Call(
      String path, String instanceId, int shardIndex, int shardTotal, int attempt) {}

  @Test
  void fiveShardsOnThreeDispatcherProcessesRunOnceEachAndTheirDependentAfterAllOfThem(AxTestEnv env)
      throws Exception {
    List<Call> calls = new CopyOnWriteArrayList<>();
    HttpServer endpoint =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    endpoint.createContext(
        "/",
        exchange -> {
          Call call =
              new Call(
                  exchange.getRequestURI().getPath(),
                  exchange.getRequestHeaders().getFirst("X-AX-Instance-Id"),
                  Integer.parseInt(exchange.getRequestHeaders().getFirst("X-AX-Shard-Index")),
                  Integer.parseInt(exchange.getRequestHeaders().getFirst("X-AX-Shard-Total")),
                  Integer.parseInt(exchange.getRequestHeaders().getFirst("X-AX-Attempt")));
          calls.add(call);
          boolean fail =
              call.path().equals("/flaky") && call.shardIndex() == 1
                  || call.path().equals("/wobbly") && call.shardIndex() == 2 && call.attempt() == 1;
          exchange.sendResponseHeaders(fail ? 500 : 200, -1);
          exchange.close();
        });
    endpoint.start();
    String base = "http://127.0.0.1:" + endpoint.getAddress().getPort();
    Map<String, String> config =
        Map.of("AX_HTTP_ALLOWED_HOSTS", "127.0.0.1", "AX_REAPER_INTERVAL", "500ms");
    List<Process> dispatchers = new ArrayList<>();
    try (TestRuntime runtime = TestRuntime.open(env, config);
        RunningStages core =
            RunningStages.on(runtime, "core").ingest().ticker().retries().resolver();
        KafkaProducer<String, byte[]> producer = UserClients.producer(runtime);
        TopicReader completed = UserClients.completed(runtime)) {
      for (int i = 1; i <= 3; i++) {
        dispatchers.add(
            StageProcess.start(
                env,
                DispatcherMain.class,
                "disp-" + i,
                Map.of("AX_HTTP_ALLOWED_HOSTS", "127.0.0.1")));
      }
      runtime.awaitGroupsAssigned(1, "ingest");
      runtime.awaitGroupsAssigned(3, "dispatcher");
      await().atMost(Duration.ofSeconds(60)).until(core.get(ResolverStage.class)::isRunning);

      // Each upstream stored before its dependent: commands on different partitions have no order.
      TaskStore tasks = new TaskStore(runtime.dataSource());
      // Due in 4 s: the dependents are stored, and in the resolver's graph, before they fire.
      Commands.send(producer, runtime, "report", sharded(base + "/report", 5, 4_000));
      Commands.send(producer, runtime, "flaky", sharded(base + "/flaky", 3, 4_000));
      Commands.send(
          producer,
          runtime,
          "wobbly",
          TaskBody.http(TaskBody.once(1_000), base + "/wobbly")
              + ",\"sharding\":{\"total\":3},\"retry\":{\"maxRetries\":2,\"backoffBaseMs\":200}");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> tasks.existing(List.of("report", "flaky")).size() == 2);
      Commands.send(producer, runtime, "summary", TaskBody.noop(TaskBody.dependency("report")));
      Commands.send(producer, runtime, "after-flaky", TaskBody.noop(TaskBody.dependency("flaky")));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> tasks.existing(List.of("summary", "after-flaky")).size() == 2);

      Map<String, List<TaskCompletedEvent>> events = new HashMap<>();
      await()
          .atMost(Duration.ofSeconds(90))
          .until(
              () -> {
                collect(completed.poll(), events);
                return firingEvent(events, "report").size() == 1
                    && firingEvent(events, "flaky").size() == 1
                    && firingEvent(events, "wobbly").size() == 1
                    && events.getOrDefault("summary", List.of()).size() == 1;
              });

      // Each of the five shards ran exactly once, with its index and the total.
      List<Call> report = calls.stream().filter(c -> c.instanceId().startsWith("report@")).toList();
      assertThat(report).hasSize(5);
      assertThat(report).extracting(Call::shardIndex).containsExactlyInAnyOrder(0, 1, 2, 3, 4);
      assertThat(report).allSatisfy(c -> assertThat(c.shardTotal()).isEqualTo(5));
      assertThat(report).allSatisfy(c -> assertThat(c.attempt()).isEqualTo(1));
      assertThat(report)
          .allSatisfy(c -> assertThat(c.instanceId()).endsWith("#" + c.shardIndex() + "of5"));
      Set<String> ranOn = new HashSet<>();
      AuditLog audit = new AuditLog(runtime.dataSource());
      for (Call call : report) {
        audit.history(call.instanceId()).stream()
            .filter(t -> t.to() == InstanceStatus.RUNNING)
            .forEach(t -> ranOn.add(t.actor()));
      }
      System.out.println("The five shards ran on " + ranOn);

      // One completion per shard, and one for the firing, after the last shard.
      List<TaskCompletedEvent> reportEvents = events.get("report");
      List<TaskCompletedEvent> shardEvents =
          reportEvents.stream()
              .filter(e -> e.shards() != null && e.shards().index() != null)
              .toList();
      assertThat(shardEvents).hasSize(5);
      TaskCompletedEvent firing = firingEvent(events, "report").get(0);
      assertThat(firing.status()).isEqualTo(InstanceStatus.SUCCESS);
      assertThat(firing.shards().total()).isEqualTo(5);
      assertThat(firing.shards().succeeded()).isEqualTo(5);
      assertThat(firing.shards().failed()).isEmpty();
      assertThat(shardEvents)
          .allSatisfy(e -> assertThat(e.shards().firing()).isEqualTo(firing.instanceId()));
      long lastShardFinishedAtMs =
          shardEvents.stream().mapToLong(TaskCompletedEvent::finishedAtMs).max().orElseThrow();
      assertThat(firing.finishedAtMs()).isGreaterThanOrEqualTo(lastShardFinishedAtMs);

      // The dependent fired once, in the firing's flow run, after every shard had finished.
      TaskCompletedEvent summary = events.get("summary").get(0);
      assertThat(summary.status()).isEqualTo(InstanceStatus.SUCCESS);
      assertThat(summary.flowRunId()).isEqualTo(firing.instanceId());
      assertThat(summary.startedAtMs()).isGreaterThanOrEqualTo(lastShardFinishedAtMs);

      // A shard that fails for good ends its firing DEAD, naming it; its dependent never fires.
      TaskCompletedEvent flaky = firingEvent(events, "flaky").get(0);
      assertThat(flaky.status()).isEqualTo(InstanceStatus.DEAD);
      assertThat(flaky.shards().failed()).containsExactly(1);
      assertThat(flaky.shards().succeeded()).isEqualTo(2);
      assertThat(flaky.error()).isEqualTo("shards failed: 1");

      // The failed firing sent nothing to the resolver: its dependent has no instance at all.
      assertThat(new InstanceStore(runtime.dataSource()).findByTask("after-flaky")).isEmpty();
      assertThat(events.get("summary")).hasSize(1);
      assertThat(calls.stream().filter(c -> c.path().equals("/flaky")).toList()).hasSize(3);

      // A shard that fails once is retried on its own; its firing waits for it and succeeds.
      assertThat(firingEvent(events, "wobbly").get(0).status()).isEqualTo(InstanceStatus.SUCCESS);
      assertThat(calls.stream().filter(c -> c.path().equals("/wobbly")).toList())
          .extracting(c -> c.shardIndex() + "#" + c.attempt())
          .containsExactlyInAnyOrder("0#1", "1#1", "2#1", "2#2");

      // An operator sees the sharding and each shard's run.
      try (CliRun.Target cli = CliRun.pointAt(env, runtime)) {
        String shown = CliRun.ax("task", "show", "report", "--instances", "10").okOut();
        assertThat(shown)
            .contains("each firing runs as 5 shards")
            .contains("\"sharding\"")
            .contains(firing.instanceId() + "#4of5")
            .contains(firing.instanceId() + " ");
      }
    } finally {
      dispatchers.forEach(Process::destroyForcibly);
      endpoint.stop(0);
    }
  }

  /** A ONCE task due in {@code delayMs}, run as {@code shards} shards calling {@code url}. */
  private static String sharded(String url, int shards, long delayMs) {
    return TaskBody.http(TaskBody.once(delayMs), url)
        + ",\"sharding\":{\"total\":"
        + shards
        + "},\"retry\":{\"maxRetries\":0}";
  }

  private static void collect(
      List<ConsumerRecord<String, byte[]>> records, Map<String, List<TaskCompletedEvent>> events) {
    events.clear();
    for (ConsumerRecord<String, byte[]> record : records) {
      TaskCompletedEvent event = AxJson.read(record.value(), TaskCompletedEvent.class);
      events.computeIfAbsent(event.taskId(), k -> new ArrayList<>()).add(event);
    }
  }

  /** The aggregate completions of {@code taskId}'s firings. */
  private static List<TaskCompletedEvent> firingEvent(
      Map<String, List<TaskCompletedEvent>> events, String taskId) {
    return events.getOrDefault(taskId, List.of()).stream()
        .filter(e -> e.shards() != null && e.shards().index() == null)
        .toList();
  }
}
