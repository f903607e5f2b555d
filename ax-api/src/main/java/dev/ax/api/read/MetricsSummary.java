package dev.ax.api.read;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.common.contract.AxJson;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * The four classes of AX's metrics in one object, read from the stages' Prometheus endpoints (the
 * operator's list; by default this process's own) and summed over them: throughput (counters of
 * created, fired, succeeded, failed, timed-out, retried and dead attempts), lateness (the start and
 * claim lateness histograms, cumulative buckets, so a client takes percentiles over the interval
 * between two reads), backlog (instances by status, the oldest due age) and the ticker (its leaders
 * and epoch). An endpoint that does not answer within {@link #TIMEOUT} is reported as such; the
 * others still count. Thread-safe.
 */
public final class MetricsSummary {

  static final Duration TIMEOUT = Duration.ofSeconds(3);

  /** Largest exposition read from one endpoint. */
  static final int MAX_BYTES = 8 * 1024 * 1024;

  private static final Map<String, String> COUNTERS =
      Map.of(
          "ax_ingest_created_tasks_total", "created",
          "ax_ticker_fired_total", "fired",
          "ax_dispatcher_succeeded_total", "succeeded",
          "ax_dispatcher_failed_total", "failed",
          "ax_dispatcher_timeout_total", "timeout",
          "ax_dispatcher_retried_total", "retried",
          "ax_dispatcher_dead_total", "dead");

  private static final Map<String, String> HISTOGRAMS =
      Map.of(
          "ax_dispatcher_start_lateness_ms_bucket", "start",
          "ax_dispatcher_lateness_ms_bucket", "claim",
          "ax_dispatcher_run_duration_ms_bucket", "run");

  private final List<URI> sources;
  private final HttpClient http;
  private final LongSupplier clockMs;

  public MetricsSummary(List<URI> sources, LongSupplier clockMs) {
    this.sources = List.copyOf(sources);
    this.clockMs = clockMs;
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(TIMEOUT)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  /** Reads every source now and sums what they serve. */
  public ObjectNode read() throws InterruptedException {
    ObjectNode body = AxJson.MAPPER.createObjectNode();
    body.put("readAtMs", clockMs.getAsLong());
    ArrayNode read = body.putArray("sources");
    List<PrometheusText.Sample> samples = new ArrayList<>();
    for (URI source : sources) {
      ObjectNode status = read.addObject().put("url", source.toString());
      try {
        samples.addAll(PrometheusText.parse(fetch(source), "ax_"));
        status.put("ok", true);
      } catch (IOException e) {
        status.put("ok", false).put("error", e.getMessage());
      }
    }
    Map<String, Double> counters = new TreeMap<>();
    COUNTERS.values().forEach(name -> counters.put(name, 0.0));
    Map<String, Double> backlog = new TreeMap<>();
    Map<String, TreeMap<Double, Double>> buckets = new TreeMap<>();
    double oldest = 0;
    double epoch = 0;
    int leaders = 0;
    for (PrometheusText.Sample s : samples) {
      if (Double.isNaN(s.value())) {
        continue;
      }
      String counter = COUNTERS.get(s.name());
      String histogram = HISTOGRAMS.get(s.name());
      if (counter != null) {
        counters.merge(counter, s.value(), Double::sum);
      } else if (histogram != null && s.labels().containsKey("le")) {
        double le =
            "+Inf".equals(s.labels().get("le"))
                ? Double.POSITIVE_INFINITY
                : Double.parseDouble(s.labels().get("le"));
        buckets.computeIfAbsent(histogram, h -> new TreeMap<>()).merge(le, s.value(), Double::sum);
      } else if (s.name().equals("ax_backlog_instances") && s.labels().containsKey("status")) {
        backlog.merge(s.labels().get("status"), s.value(), Double::sum);
      } else if (s.name().equals("ax_backlog_oldest_due_age_ms")) {
        oldest = Math.max(oldest, s.value());
      } else if (s.name().equals("ax_ticker_epoch")) {
        epoch = Math.max(epoch, s.value());
      } else if (s.name().equals("ax_ticker_leader") && s.value() == 1) {
        leaders++;
      }
    }
    ObjectNode throughput = body.putObject("throughput");
    counters.forEach((name, value) -> throughput.put(name, value.longValue()));
    ObjectNode lateness = body.putObject("lateness");
    buckets.forEach(
        (name, cumulative) -> {
          ArrayNode rows = lateness.putArray(name);
          cumulative.forEach(
              (le, count) ->
                  rows.addArray().add(le.isInfinite() ? null : le).add(count.longValue()));
        });
    ObjectNode backlogNode = body.putObject("backlog");
    backlog.forEach((status, value) -> backlogNode.put(status, value.longValue()));
    body.put("oldestDueAgeMs", (long) oldest);
    body.putObject("ticker").put("leaders", leaders).put("epoch", (long) epoch);
    return body;
  }

  private String fetch(URI source) throws IOException, InterruptedException {
    HttpResponse<InputStream> response =
        http.send(
            HttpRequest.newBuilder(source).timeout(TIMEOUT).GET().build(),
            HttpResponse.BodyHandlers.ofInputStream());
    try (InputStream in = response.body()) {
      if (response.statusCode() != 200) {
        throw new IOException("HTTP " + response.statusCode());
      }
      byte[] bytes = in.readNBytes(MAX_BYTES + 1);
      if (bytes.length > MAX_BYTES) {
        throw new IOException("more than " + MAX_BYTES + " bytes");
      }
      return new String(bytes, StandardCharsets.UTF_8);
    }
  }
}
