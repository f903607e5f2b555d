package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.ax.cli.AxCli;
import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.kafka.RejectHeaders;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TopicReader;
import dev.ax.deadletter.DeadLetterReplayer;
import dev.ax.deadletter.DeadLetterStore;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.resolver.ResolverStage;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Dependency triggers end to end: a chain behind a cron task, a diamond join, a failing upstream
 * that triggers nothing until its dead letter is replayed, and a cycle rejected with its reason.
 */
@ExtendWith(AxInfraExtension.class)
class FlowIT {

  /** Periods shorter than AX_MIN_INTERVAL's default (1 s) keep this test fast. */
  private static final Map<String, String> FAST_PERIODS = Map.of("AX_MIN_INTERVAL", "100ms");

  private static final int FLOW_RUNS = 6;

  @Test
  void chainsAndJoinsRunOncePerFlowRunAndOnlyAfterSuccess(AxTestEnv env) throws Exception {
    AtomicBoolean healthy = new AtomicBoolean(false);
    HttpServer endpoint = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    endpoint.createContext(
        "/sync",
        exchange -> {
          exchange.sendResponseHeaders(healthy.get() ? 200 : 503, -1);
          exchange.close();
        });
    endpoint.start();
    Map<String, String> config = Map.of("AX_HTTP_ALLOWED_HOSTS", "127.0.0.1");
    try (TestRuntime runtime = TestRuntime.open(env, config);
        RunningStages stages =
            RunningStages.on(runtime, "node-1")
                .ingest()
                .ticker()
                .retries()
                .resolver()
                .dispatcher();
        KafkaProducer<String, byte[]> producer = UserClients.producer(runtime);
        TopicReader completed = UserClients.completed(runtime);
        TopicReader rejected = UserClients.rejected(runtime)) {
      runtime.awaitGroupsAssigned(1, "ingest", "dispatcher");
      await().atMost(Duration.ofSeconds(60)).until(stages.get(ResolverStage.class)::isRunning);

      // A dependency naming a task not stored yet is rejected, and commands on different
      // partitions have no order: store each upstream before its downstreams.
      TaskStore tasks = new TaskStore(runtime.dataSource());
      Commands.send(producer, runtime, "a", cron("0/2 * * * * ?"));
      sendChainWithBranch(producer, runtime, tasks, "a", "b", "x", "c");
      Commands.send(producer, runtime, "join", dependency("c", "x"));
      Commands.send(producer, runtime, "cyclic", dependency("cyclic"));
      String syncUrl = "http://127.0.0.1:" + endpoint.getAddress().getPort() + "/sync";
      Commands.send(
          producer,
          runtime,
          "sync",
          "\"trigger\":{\"type\":\"ONCE\",\"delayMs\":500},"
              + "\"executor\":{\"type\":\"HTTP\",\"url\":\""
              + syncUrl
              + "\"},\"retry\":{\"maxRetries\":2,\"backoffBaseMs\":200,\"backoffMaxMs\":1000}");
      stored(tasks, "sync");
      Commands.send(producer, runtime, "report", dependency("sync"));

      await().atMost(Duration.ofSeconds(30)).until(() -> !rejected.poll().isEmpty());
      ConsumerRecord<String, byte[]> cycle = rejected.poll().get(0);
      assertThat(cycle.key()).isEqualTo("cyclic");
      assertThat(
              new String(
                  cycle.headers().lastHeader(RejectHeaders.REASON).value(), StandardCharsets.UTF_8))
          .isEqualTo("dependency would close a cycle: cyclic -> cyclic");

      // Six flow runs of the cron chain, each complete through the diamond's join.
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> byTask(completed.poll()).getOrDefault("join", List.of()).size() >= FLOW_RUNS);
      InstanceStore instances = new InstanceStore(runtime.dataSource());
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  instances.findByTask("sync").stream()
                      .anyMatch(r -> r.status() == InstanceStatus.DEAD));
      assertThat(instances.findByTask("sync").get(0).attempt())
          .as("dead after its two retries")
          .isEqualTo(3);

      Map<String, List<TaskCompletedEvent>> events = byTask(completed.poll());
      List<String> flowRuns =
          events.get("join").stream().map(TaskCompletedEvent::flowRunId).toList();
      for (String flowRun : flowRuns) {
        for (String task : List.of("a", "b", "c", "x", "join")) {
          assertThat(events.get(task))
              .as("%s in flow run %s", task, flowRun)
              .filteredOn(e -> e.flowRunId().equals(flowRun))
              .singleElement()
              .satisfies(e -> assertThat(e.status()).isEqualTo(InstanceStatus.SUCCESS));
        }
        assertThat(flowRun).startsWith("a@").as("an a instance starts each flow run");
      }
      assertThat(events.get("join"))
          .extracting(TaskCompletedEvent::flowRunId)
          .doesNotHaveDuplicates();
      assertThat(events.get("b"))
          .extracting(TaskCompletedEvent::instanceId)
          .allMatch(id -> id.startsWith("b@a@"));

      // Latency from an upstream's completion to its downstream's start, the first flow run
      // (the resolver's first transactions, class loading) left out as warm-up.
      String firstFlowRun =
          events.get("a").stream()
              .min(java.util.Comparator.comparingLong(TaskCompletedEvent::dueAtMs))
              .orElseThrow()
              .flowRunId();
      List<Long> latencies = new ArrayList<>();
      for (String[] edge : new String[][] {{"a", "b"}, {"b", "c"}, {"a", "x"}, {"c", "join"}}) {
        for (TaskCompletedEvent down : events.get(edge[1])) {
          if (down.flowRunId().equals(firstFlowRun)) {
            continue;
          }
          events.get(edge[0]).stream()
              .filter(up -> up.flowRunId().equals(down.flowRunId()))
              .forEach(up -> latencies.add(down.startedAtMs() - up.finishedAtMs()));
        }
      }
      System.out.printf(
          "Flow latency, upstream finished to downstream started (%d edges): %s%n",
          latencies.size(), sortedSummary(latencies));

      // `ax flow` shows one of them, and the failed flow run's waiting task.
      java.io.StringWriter flowOut = new java.io.StringWriter();
      picocli.CommandLine cli = AxCli.commandLine();
      cli.setOut(new java.io.PrintWriter(flowOut, true));
      System.setProperty("AX_JDBC_URL", env.database().jdbcUrl());
      System.setProperty("AX_JDBC_USER", env.database().user());
      System.setProperty("AX_JDBC_PASSWORD", env.database().password());
      try {
        assertThat(cli.execute("flow", flowRuns.get(1))).isZero();
        assertThat(flowOut.toString())
            .contains("flow run " + flowRuns.get(1))
            .contains("join@" + flowRuns.get(1))
            .contains("SUCCESS")
            .contains("waiting: nothing");
        String failedFlow = instances.findByTask("sync").get(0).instanceId();
        flowOut.getBuffer().setLength(0);
        assertThat(cli.execute("flow", failedFlow)).isZero();
        assertThat(flowOut.toString()).contains("DEAD").contains("waiting: report on sync");
        flowOut.getBuffer().setLength(0);
        assertThat(cli.execute("flow", failedFlow, "--json")).isZero();
        com.fasterxml.jackson.databind.JsonNode flowJson =
            dev.ax.common.contract.AxJson.MAPPER.readTree(flowOut.toString());
        assertThat(flowJson.get("flowRunId").asText()).isEqualTo(failedFlow);
        assertThat(flowJson.get("edges").toString()).contains("\"to\":\"report\"");
        assertThat(AxCli.commandLine().execute("flow", "no-such-flow"))
            .isEqualTo(dev.ax.cli.command.ExitCodes.FAILED);
      } finally {
        System.clearProperty("AX_JDBC_URL");
        System.clearProperty("AX_JDBC_USER");
        System.clearProperty("AX_JDBC_PASSWORD");
      }

      // The failed upstream triggered nothing; replayed after the fix, its flow run continues.
      assertThat(events.getOrDefault("report", List.of())).isEmpty();
      healthy.set(true);
      DeadLetterStore letters = new DeadLetterStore(runtime.dataSource());
      long letter = DeadLetters.awaitNewest(letters, "sync", Duration.ofSeconds(30)).id();
      new DeadLetterReplayer(letters, instances, producer, runtime.topics())
          .replay(letter, "operator", "endpoint fixed", runtime.clock().millis());
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> byTask(completed.poll()).containsKey("report"));
      String syncInstance = instances.findByTask("sync").get(0).instanceId();
      assertThat(byTask(completed.poll()).get("report"))
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.status()).isEqualTo(InstanceStatus.SUCCESS);
                assertThat(e.flowRunId()).isEqualTo(syncInstance);
              });
    } finally {
      endpoint.stop(0);
    }
  }

  /**
   * A measurement, not a contract check: 40 flow runs of a 250 ms fixed-rate upstream through a
   * chain and a fan-out, so that p99 rests on some 150 edges rather than 20.
   */
  @Test
  void measuresUpstreamToDownstreamLatencyOverManyFlowRuns(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env);
        RunningStages stages =
            RunningStages.on(runtime, "node-1")
                .ingest(FAST_PERIODS)
                .ticker()
                .resolver()
                .dispatcher();
        KafkaProducer<String, byte[]> producer = UserClients.producer(runtime);
        TopicReader completed = UserClients.completed(runtime)) {
      runtime.awaitGroupsAssigned(1, "ingest", "dispatcher");
      await().atMost(Duration.ofSeconds(60)).until(stages.get(ResolverStage.class)::isRunning);
      TaskStore tasks = new TaskStore(runtime.dataSource());
      Commands.send(producer, runtime, "src", TaskBody.noop(TaskBody.fixedRate(250)));
      sendChainWithBranch(producer, runtime, tasks, "src", "m1", "m2", "end");
      // Flow runs that started before the graph reached the resolver trigger nothing: wait for
      // 45 complete ones and measure the last 40.
      await()
          .atMost(Duration.ofSeconds(90))
          .until(() -> byTask(completed.poll()).getOrDefault("end", List.of()).size() >= 45);
      Map<String, List<TaskCompletedEvent>> events = byTask(completed.poll());
      Map<String, TaskCompletedEvent> src = new HashMap<>();
      events.get("src").forEach(e -> src.put(e.flowRunId(), e));
      Map<String, TaskCompletedEvent> m1 = new HashMap<>();
      events.get("m1").forEach(e -> m1.put(e.flowRunId(), e));
      List<TaskCompletedEvent> ends =
          events.get("end").stream()
              .sorted(java.util.Comparator.comparingLong(TaskCompletedEvent::dueAtMs))
              .toList();
      Set<String> measured = new HashSet<>();
      ends.subList(ends.size() - 40, ends.size()).forEach(e -> measured.add(e.flowRunId()));
      List<Long> latencies = new ArrayList<>();
      for (String flowRun : measured) {
        latencies.add(m1.get(flowRun).startedAtMs() - src.get(flowRun).finishedAtMs());
        latencies.add(
            ends.stream()
                    .filter(e -> e.flowRunId().equals(flowRun))
                    .findFirst()
                    .orElseThrow()
                    .startedAtMs()
                - m1.get(flowRun).finishedAtMs());
      }
      for (TaskCompletedEvent e : events.get("m2")) {
        if (measured.contains(e.flowRunId())) {
          latencies.add(e.startedAtMs() - src.get(e.flowRunId()).finishedAtMs());
        }
      }
      System.out.printf(
          "Flow latency over %d edges of 40 flow runs: %s%n",
          latencies.size(), sortedSummary(latencies));
      assertThat(latencies).hasSize(120).allSatisfy(ms -> assertThat(ms).isNotNegative());
    }
  }

  /** Sorts {@code latenciesMs} in place and names its p50, p90, p99 and max. */
  private static String sortedSummary(List<Long> latenciesMs) {
    Collections.sort(latenciesMs);
    int n = latenciesMs.size();
    return String.format(
        "p50 %d, p90 %d, p99 %d, max %d ms",
        latenciesMs.get(n / 2),
        latenciesMs.get(n * 9 / 10),
        latenciesMs.get(n * 99 / 100),
        latenciesMs.get(n - 1));
  }

  private static void stored(TaskStore tasks, String... taskIds) {
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> tasks.existing(List.of(taskIds)).size() == taskIds.length);
  }

  /**
   * Sends the flow {@code top -> middle -> bottom}, with {@code branch} off {@code top} too, once
   * {@code top} (sent already) is stored: each downstream only once its upstreams are.
   */
  private static void sendChainWithBranch(
      KafkaProducer<String, byte[]> producer,
      TestRuntime runtime,
      TaskStore tasks,
      String top,
      String middle,
      String branch,
      String bottom)
      throws Exception {
    stored(tasks, top);
    Commands.send(producer, runtime, middle, dependency(top));
    Commands.send(producer, runtime, branch, dependency(top));
    stored(tasks, middle);
    Commands.send(producer, runtime, bottom, dependency(middle));
    stored(tasks, bottom, branch);
  }

  private static String cron(String expression) {
    return TaskBody.noop(TaskBody.cron(expression));
  }

  private static String dependency(String... upstreams) {
    return TaskBody.noop(TaskBody.dependency(upstreams));
  }

  private static Map<String, List<TaskCompletedEvent>> byTask(
      List<ConsumerRecord<String, byte[]>> records) {
    Map<String, List<TaskCompletedEvent>> byTask = new HashMap<>();
    for (ConsumerRecord<String, byte[]> record : records) {
      TaskCompletedEvent event = AxJson.read(record.value(), TaskCompletedEvent.class);
      byTask.computeIfAbsent(event.taskId(), k -> new ArrayList<>()).add(event);
    }
    return byTask;
  }
}
