package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.api.audit.OperatorLog;
import dev.ax.api.http.ApiSettings;
import dev.ax.api.http.ApiTokens;
import dev.ax.cli.command.ExitCodes;
import dev.ax.cli.local.ConsoleServer;
import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TopicReader;
import dev.ax.dispatcher.DispatcherMain;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The acceptance test of executor pools: a FIXED_RATE task (every 300 ms) routed ROUND_ROBIN to a
 * pool of 3 local endpoints that register themselves by heartbeat through the API (a token of role
 * heartbeat), run by two dispatcher processes. One endpoint is killed mid-run (its server stopped,
 * its heartbeats stopped) and a fourth registers: every run succeeds on its first attempt and
 * starts on time, the dead endpoint gets no call after it died (only failed connects, counted by
 * the dispatchers' {@code ax_pool_failovers_total}), the new one gets calls after it registered.
 * The pool is created, shown and drained with {@code ax pool} through the API; each change is in
 * the operator log.
 */
@ExtendWith(AxInfraExtension.class)
class ExecutorPoolIT {

  private static final String OPERATE_TOKEN = "op-token-0123456789abcdef0123456789";
  private static final String HEARTBEAT_TOKEN = "hb-token-0123456789abcdef0123456789";
  private static final String POOL = "workers";
  private static final long LATENESS_BOUND_MS = 2_000;

  private final HttpClient http = HttpClient.newHttpClient();
  private final Set<String> beating = ConcurrentHashMap.newKeySet();

  @Test
  void aPoolKeepsEveryRunOnTimeWhileAnEndpointDiesAndAnotherJoins(AxTestEnv env) throws Exception {
    Path tokens = Files.createTempFile("ax-pool-tokens", ".txt");
    Files.write(
        tokens,
        List.of(OPERATE_TOKEN + " olga operate", HEARTBEAT_TOKEN + " beat heartbeat " + POOL));
    Path tokenFile = Files.createTempFile("ax-pool-token", ".txt");
    Files.writeString(tokenFile, OPERATE_TOKEN + "\n");
    Map<String, String> config =
        Map.of("AX_HTTP_ALLOWED_HOSTS", "127.0.0.1", "AX_MIN_INTERVAL", "100ms");
    int[] metricsPorts = {StageProcess.freeLoopbackPort(), StageProcess.freeLoopbackPort()};
    List<Process> dispatchers = new ArrayList<>();
    List<HookRecorder> endpoints = new ArrayList<>();
    ScheduledExecutorService heartbeats = Executors.newSingleThreadScheduledExecutor();
    try (TestRuntime runtime = TestRuntime.open(env, config);
        RunningStages core = RunningStages.on(runtime, "core").ingest().ticker();
        KafkaProducer<String, byte[]> producer = UserClients.producer(runtime);
        TopicReader completed = UserClients.completed(runtime);
        ConsoleServer console =
            ConsoleServer.start(
                new ApiSettings(
                    "127.0.0.1", 0, Optional.of(ApiTokens.read(tokens)), 64 * 1024, 1_000),
                List.of(),
                runtime.dataSource(),
                runtime.clock()::millis,
                runtime.kafka(),
                runtime.topics(),
                "pool-test")) {
      for (int i = 0; i < 2; i++) {
        dispatchers.add(
            StageProcess.start(
                env,
                DispatcherMain.class,
                "pool-dispatcher-" + i,
                Map.of(
                    "AX_HTTP_ALLOWED_HOSTS",
                    "127.0.0.1",
                    "AX_METRICS_BIND",
                    "127.0.0.1:" + metricsPorts[i])));
      }
      System.setProperty("AX_API_URL", console.apiUrl());
      System.setProperty("AX_API_TOKEN_FILE", tokenFile.toString());
      CliRun.ax("pool", "create", POOL, "--strategy", "ROUND_ROBIN", "--offline-after", "3s")
          .okOut();
      for (int i = 0; i < 3; i++) {
        endpoints.add(HookRecorder.start());
        beating.add(endpoints.get(i).baseUrl());
      }
      heartbeats.scheduleAtFixedRate(
          () -> beating.forEach(url -> heartbeat(console.apiUrl(), url)),
          0,
          300,
          TimeUnit.MILLISECONDS);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> online(CliRun.ax("pool", "show", POOL).okOut()) == 3);
      runtime.awaitGroupsAssigned(1, "ingest");
      runtime.awaitGroupsAssigned(2, "dispatcher");

      Commands.send(
          producer,
          runtime,
          "pooled",
          // Every firing runs, so every one is judged: a run may still be in flight at the next.
          "\"trigger\":{\"type\":\"FIXED_RATE\",\"intervalMs\":300},\"overlap\":\"ALLOW_ALL\","
              + "\"executor\":{\"type\":\"HTTP\",\"pool\":\""
              + POOL
              + "\",\"path\":\"/hook/run\"}");
      await().atMost(Duration.ofSeconds(60)).until(() -> served(endpoints) >= 9);
      // The first runs wait for the pipeline's first claim (class loading, first reads in fresh
      // processes): lateness is judged from here on, through the death and the join.
      long warmedAtMs = System.currentTimeMillis();

      HookRecorder dead = endpoints.get(1);
      beating.remove(dead.baseUrl());
      dead.close();
      long diedAtMs = System.currentTimeMillis();
      int servedWhenDied = completed.poll().size();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> completed.poll().size() >= servedWhenDied + 6);

      HookRecorder joined = HookRecorder.start();
      endpoints.add(joined);
      long joinedAtMs = System.currentTimeMillis();
      beating.add(joined.baseUrl());
      await().atMost(Duration.ofSeconds(30)).until(() -> joined.calls().size() >= 3);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  events(completed).stream().filter(e -> e.dueAtMs() >= warmedAtMs).count() >= 20);

      JsonNode pool = AxJson.MAPPER.readTree(CliRun.ax("pool", "show", POOL).okOut());
      assertThat(pool.get("endpoints")).hasSize(4);
      assertThat(CliRun.ax("pool", "drain", POOL, joined.baseUrl(), "--reason", "done").okOut())
          .contains("CHANGED");
      CliRun notThere = CliRun.ax("pool", "drain", POOL, "http://127.0.0.1:1", "--reason", "x");
      assertThat(notThere.exitCode()).isEqualTo(ExitCodes.FAILED);
      assertThat(notThere.err()).contains("not_found");

      List<TaskCompletedEvent> events = events(completed);
      assertThat(events.stream().filter(e -> e.dueAtMs() >= warmedAtMs).count())
          .as("runs judged on time")
          .isGreaterThanOrEqualTo(20);
      assertThat(events)
          .allSatisfy(
              e -> {
                assertThat(e.status())
                    .as(e.instanceId() + " " + e.error())
                    .isEqualTo(InstanceStatus.SUCCESS);
                assertThat(e.attempt()).as("no retry used: " + e.instanceId()).isEqualTo(1);
                if (e.dueAtMs() >= warmedAtMs) {
                  assertThat(e.startedAtMs() - e.dueAtMs())
                      .as("lateness of " + e.instanceId())
                      .isLessThan(LATENESS_BOUND_MS);
                }
              });

      List<HookRecorder.Call> calls = endpoints.stream().flatMap(h -> h.calls().stream()).toList();
      assertThat(calls).allSatisfy(c -> assertThat(c.attempt()).isEqualTo(1));
      Map<String, Long> callsPerRun =
          calls.stream()
              .collect(Collectors.groupingBy(HookRecorder.Call::instanceId, Collectors.counting()));
      assertThat(callsPerRun.values())
          .as("each run reached one endpoint once")
          .allMatch(n -> n == 1);
      assertThat(dead.calls()).allSatisfy(c -> assertThat(c.arrivedAtMs()).isLessThan(diedAtMs));
      assertThat(dead.calls()).isNotEmpty();
      assertThat(joined.calls())
          .allSatisfy(c -> assertThat(c.arrivedAtMs()).isGreaterThanOrEqualTo(joinedAtMs));
      double failovers = 0;
      for (int port : metricsPorts) {
        failovers += metric(port, "ax_pool_failovers_total{", "pool=\"" + POOL + "\"");
      }
      assertThat(failovers).as("runs moved off the dead endpoint by the dispatchers").isPositive();

      List<String> audited =
          new OperatorLog(runtime.dataSource())
              .newest(null, 100).stream().map(e -> e.action() + " " + e.target()).toList();
      assertThat(audited)
          .contains(
              "pool.create " + POOL + " ROUND_ROBIN offline-after 3000ms",
              "pool.register " + POOL + " " + joined.baseUrl(),
              "pool.drain " + POOL + " " + joined.baseUrl());
      assertThat(audited.stream().filter(a -> a.startsWith("pool.register")).count())
          .as("one entry per registration, none per heartbeat")
          .isEqualTo(4);
    } finally {
      System.clearProperty("AX_API_URL");
      System.clearProperty("AX_API_TOKEN_FILE");
      heartbeats.shutdownNow();
      endpoints.forEach(HookRecorder::close);
      dispatchers.forEach(Process::destroyForcibly);
      Files.deleteIfExists(tokens);
      Files.deleteIfExists(tokenFile);
    }
  }

  private void heartbeat(String apiUrl, String url) {
    try {
      HttpResponse<String> answer =
          http.send(
              HttpRequest.newBuilder(URI.create(apiUrl + "/pools/" + POOL + "/heartbeat"))
                  .header("Authorization", "Bearer " + HEARTBEAT_TOKEN)
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString("{\"url\":\"" + url + "\"}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (answer.statusCode() != 200) {
        System.out.println("heartbeat of " + url + " answered " + answer.body());
      }
    } catch (Exception e) {
      System.out.println("heartbeat of " + url + " failed: " + e);
    }
  }

  private static List<TaskCompletedEvent> events(TopicReader completed) {
    List<TaskCompletedEvent> events = new ArrayList<>();
    for (ConsumerRecord<String, byte[]> record : completed.poll()) {
      events.add(AxJson.read(record.value(), TaskCompletedEvent.class));
    }
    return events;
  }

  private static long served(List<HookRecorder> endpoints) {
    return endpoints.stream().mapToLong(h -> h.calls().size()).sum();
  }

  private static long online(String shown) throws Exception {
    JsonNode pool = AxJson.MAPPER.readTree(shown);
    long online = 0;
    for (JsonNode endpoint : pool.get("endpoints")) {
      online += endpoint.get("online").asBoolean() ? 1 : 0;
    }
    return online;
  }

  private double metric(int port, String prefix, String label) throws Exception {
    String text =
        http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    double sum = 0;
    for (String line : text.split("\n")) {
      if (line.startsWith(prefix) && line.contains(label)) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }
}
