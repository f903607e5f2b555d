package dev.ax.systemtest;

import static dev.ax.systemtest.TaskBody.dependency;
import static dev.ax.systemtest.TaskBody.noop;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.store.Jdbc;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * docs/METRICS.md is the contract of {@code /metrics}: every stage runs ({@code ax up} in its own
 * JVM on the test's servers), a small run goes through it (tasks that succeed, fail and retry, and
 * die, a dependency, a command rejected), and the scrape has every documented metric with its
 * documented type, every latency histogram the SLO buckets, and the counts and latencies of that
 * run moved.
 */
@ExtendWith(AxInfraExtension.class)
class MetricsIT {

  /** A row of the table: | `name` | type | ... */
  private static final Pattern ROW = Pattern.compile("^\\| `([a-z][a-z0-9_]+)` \\| (\\w+) \\|");

  private static final Pattern TYPE = Pattern.compile("^# TYPE (\\S+) (\\S+)$");

  @Test
  void everyDocumentedMetricIsScrapedWithItsTypeAndTheRunMovesThem(AxTestEnv env) throws Exception {
    int port = StageProcess.freeLoopbackPort();
    Path workDir = Files.createTempDirectory("ax-metrics-it");
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    String url = "http://127.0.0.1:" + port;
    // The test's schema first: `ax up` migrates an empty database, and the test's copy of the
    // schema template needs one, so the process starts once the copy is in.
    TestRuntime runtime = TestRuntime.open(env);
    Process up =
        StageProcess.start(
            env,
            dev.ax.cli.AxCli.class,
            "metrics-" + port,
            Map.of("AX_METRICS_BIND", "127.0.0.1:" + port),
            "up",
            "--work-dir",
            workDir.toString());
    try (runtime;
        KafkaProducer<String, byte[]> producer = UserClients.producer(runtime)) {
      await()
          .atMost(Duration.ofSeconds(90))
          .ignoreExceptions()
          .until(() -> get(http, url + "/health/ready").statusCode() == 200);
      // A pool with one endpoint, so the pool meters have rows (the dispatcher reads it within 1
      // s).
      dev.ax.common.store.PoolStore pools = new dev.ax.common.store.PoolStore(runtime.dataSource());
      pools.createPool(
          "metrics",
          dev.ax.common.model.PoolStrategy.ROUND_ROBIN,
          60_000,
          System.currentTimeMillis());
      pools.heartbeat("metrics", "http://127.0.0.1:9", System.currentTimeMillis());
      for (int i = 0; i < 5; i++) {
        Commands.send(producer, runtime, "ok-" + i, once("noop", ""));
      }
      Commands.send(producer, runtime, "later", noop(TaskBody.once(3600000)));
      Commands.send(
          producer,
          runtime,
          "dies",
          once(
              "sleep",
              ",\"params\":{\"sleepMs\":\"0\",\"fail\":\"true\"},\"retry\":{\"maxRetries\":1,"
                  + "\"backoffBaseMs\":200,\"backoffMaxMs\":200,\"jitter\":false}"));
      Commands.sendJson(producer, runtime, "garbage", "{\"v\":1,\"type\":\"CREATE\"");
      // A dependency: the upstream is due a few seconds after its downstream is stored, so the
      // resolver has the graph when it succeeds.
      Commands.send(producer, runtime, "up", noop(TaskBody.once(4000)));
      // A DEPENDENCY task naming an upstream ingest has not stored yet is rejected: commands of
      // two task ids may sit on two partitions, read in either order.
      TaskStore tasks = new TaskStore(runtime.dataSource());
      await().atMost(Duration.ofSeconds(30)).until(() -> tasks.find("up").isPresent());
      Commands.send(producer, runtime, "down", noop(dependency("up")));
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> get(http, url + "/metrics").body(),
              body ->
                  value(body, "ax_dispatcher_succeeded_total") >= 5
                      && value(body, "ax_deadletter_stored_total") >= 1
                      && value(body, "ax_ingest_rejected_total", "reason=\"invalid\"") >= 1
                      && value(body, "ax_dispatcher_downstream_start_lateness_ms_count") >= 1);
      String scrape = get(http, url + "/metrics").body();
      Files.writeString(Path.of("target", "metrics-scrape.txt"), scrape);

      Map<String, String> scraped = new HashMap<>();
      for (String line : scrape.lines().toList()) {
        Matcher type = TYPE.matcher(line);
        if (type.matches()) {
          scraped.put(type.group(1), type.group(2));
        }
      }
      Map<String, String> documented = new HashMap<>();
      for (String line : Files.readAllLines(Path.of("..", "docs", "METRICS.md"))) {
        Matcher row = ROW.matcher(line);
        if (row.find()) {
          documented.put(row.group(1), row.group(2));
        }
      }
      assertThat(documented).as("docs/METRICS.md rows").hasSizeGreaterThan(30);
      documented.forEach(
          (name, type) ->
              assertThat(scraped.get(name)).as("type of %s on /metrics", name).isEqualTo(type));
      for (String histogram :
          List.of(
              "ax_ticker_emit_lateness_ms",
              "ax_dispatcher_lateness_ms",
              "ax_dispatcher_start_lateness_ms",
              "ax_dispatcher_run_duration_ms",
              "ax_resolver_trigger_lateness_ms",
              "ax_dispatcher_downstream_start_lateness_ms")) {
        for (String le : List.of("50.0", "100.0", "500.0", "1000.0", "2000.0", "5000.0")) {
          assertThat(scrape)
              .as("%s bucket %s", histogram, le)
              .containsPattern(
                  Pattern.quote(histogram + "_bucket{") + "[^}]*le=\"" + Pattern.quote(le) + "\"");
        }
        assertThat(value(scrape, histogram + "_count")).as("%s moved", histogram).isPositive();
      }
      for (String counter :
          List.of(
              "ax_ingest_received_total",
              "ax_ingest_created_tasks_total",
              "ax_ticker_fired_total",
              "ax_dispatcher_claimed_total",
              "ax_dispatcher_started_total",
              "ax_ticker_leader_handovers_total",
              "ax_ticker_epoch",
              "kafka_producer_record_send_total",
              "ax_dispatcher_succeeded_total",
              "ax_dispatcher_failed_total",
              "ax_dispatcher_retried_total",
              "ax_dispatcher_dead_total",
              "ax_retry_dispatched_total",
              "ax_deadletter_stored_total")) {
        assertThat(value(scrape, counter)).as("%s moved", counter).isPositive();
      }
      assertThat(scrape)
          .as("outcomes by group and namespace")
          .containsPattern("(?m)^ax_dispatcher_succeeded_total\\{[^}]*group=\"[^\"]+\"")
          .containsPattern("(?m)^ax_dispatcher_failed_total\\{[^}]*namespace=\"default\"")
          .containsPattern("(?m)^ax_dispatcher_group_run_duration_ms_count\\{[^}]*group=\"[^\"]+\"")
          .containsPattern("(?m)^ax_dispatcher_group_run_duration_ms_max\\{[^}]*group=\"");
      assertThat(value(scrape, "ax_dispatcher_group_run_duration_ms_count"))
          .as("run durations by group")
          .isPositive();
      assertThat(scrape)
          .as("held events by pool, consumer lag by client")
          .containsPattern("(?m)^ax_dispatcher_held_events\\{[^}]*pool=\"")
          .containsPattern("(?m)^kafka_consumer_fetch_manager_records_lag_max\\{[^}]*client_id=\"");
      assertThat(value(scrape, "ax_ingest_rejected_total"))
          .as("the unreadable command is the only rejection, counted as invalid")
          .isEqualTo(1);
      // The backlog gauges are the store's: the one task due in an hour waits SCHEDULED.
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  value(
                          get(http, url + "/metrics").body(),
                          "ax_backlog_instances",
                          "status=\"SCHEDULED\"")
                      == scheduledInStore(runtime));
      assertThat(scheduledInStore(runtime)).isPositive();
      assertThat(value(get(http, url + "/metrics").body(), "ax_backlog_oldest_due_age_ms"))
          .as("the leader reads it")
          .isNotNaN();
    } finally {
      up.destroy();
      assertThat(up.waitFor(60, TimeUnit.SECONDS)).as("ax up stops on SIGTERM").isTrue();
    }
  }

  private static String once(String handler, String more) {
    return "\"trigger\":{\"type\":\"ONCE\",\"delayMs\":0},"
        + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\""
        + handler
        + "\"}"
        + more;
  }

  /** The sum of every series of {@code name} (any labels) in a scrape. */
  static double value(String scrape, String name) {
    return value(scrape, name, "");
  }

  /** The sum of the series of {@code name} whose labels contain {@code label} ({@code k="v"}). */
  static double value(String scrape, String name, String label) {
    double sum = 0;
    Pattern series = Pattern.compile("^" + Pattern.quote(name) + "(\\{[^}]*\\})? (\\S+)$");
    for (String line : scrape.lines().toList()) {
      Matcher m = series.matcher(line);
      if (m.matches() && (m.group(1) == null ? "" : m.group(1)).contains(label)) {
        sum += Double.parseDouble(m.group(2));
      }
    }
    return sum;
  }

  private static long scheduledInStore(TestRuntime runtime) {
    return new Jdbc(runtime.dataSource())
        .queryLong(
            "counting SCHEDULED instances",
            "SELECT COUNT(*) FROM ax_instance WHERE status = 'SCHEDULED'",
            Jdbc.Binder.values());
  }

  private static HttpResponse<String> get(HttpClient http, String url) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
