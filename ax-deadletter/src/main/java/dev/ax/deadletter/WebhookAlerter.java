package dev.ax.deadletter;

import dev.ax.common.thread.DaemonThreads;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * POSTs one JSON alert per new dead letter to the configured webhook, on a thread of its own with a
 * bounded queue, at most {@code perMinute} a minute (a fixed one-minute window). A slow, failing or
 * absent webhook never blocks the stage: alerts that do not fit are counted and dropped. The URL is
 * never logged (it often carries a token). Thread-safe.
 */
final class WebhookAlerter implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(WebhookAlerter.class);
  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  private final URI url;
  private final AlertFormat format;
  private final int perMinute;
  private final HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
  private final ThreadPoolExecutor sender =
      new ThreadPoolExecutor(
          1,
          1,
          0,
          TimeUnit.MILLISECONDS,
          new ArrayBlockingQueue<>(100),
          DaemonThreads.named("ax-deadletter-webhook"));
  private final Counter sent;
  private final Counter failed;
  private final Counter suppressed;
  private long windowStartMs;
  private int inWindow;

  /**
   * @param url null: alerts are counted as suppressed only
   */
  WebhookAlerter(URI url, int perMinute, MeterRegistry meters) {
    this(url, AlertFormat.GENERIC, perMinute, meters);
  }

  /**
   * @param url null: alerts are counted as suppressed only
   * @param format how each alert is written for the receiver
   */
  WebhookAlerter(URI url, AlertFormat format, int perMinute, MeterRegistry meters) {
    this.url = url;
    this.format = format;
    this.perMinute = perMinute;
    this.sent = meters.counter("ax.deadletter.alerts.sent");
    this.failed = meters.counter("ax.deadletter.alerts.failed");
    this.suppressed = meters.counter("ax.deadletter.alerts.suppressed");
  }

  /** Queues an alert unless the webhook is off, the minute's budget is spent or the queue full. */
  void alert(Map<String, Object> alert, long nowMs) {
    if (url == null || !admit(nowMs)) {
      suppressed.increment();
      return;
    }
    try {
      sender.execute(() -> post(alert));
    } catch (RejectedExecutionException e) {
      suppressed.increment();
    }
  }

  private synchronized boolean admit(long nowMs) {
    if (nowMs - windowStartMs >= 60_000) {
      windowStartMs = nowMs;
      inWindow = 0;
    }
    if (inWindow >= perMinute) {
      return false;
    }
    inWindow++;
    return true;
  }

  private void post(Map<String, Object> alert) {
    try {
      HttpRequest request =
          HttpRequest.newBuilder(url)
              .timeout(TIMEOUT)
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofByteArray(format.body(alert)))
              .build();
      HttpResponse<Void> response = client.send(request, HttpResponse.BodyHandlers.discarding());
      if (response.statusCode() / 100 == 2) {
        sent.increment();
      } else {
        failed.increment();
        log.warn(
            "Dead-letter webhook answered HTTP {} for {}",
            response.statusCode(),
            alert.get("instanceId"));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      failed.increment();
      log.warn("Dead-letter webhook failed for {}: {}", alert.get("instanceId"), e.toString());
    }
  }

  @Override
  public void close() {
    sender.shutdown();
    try {
      sender.awaitTermination(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    sender.shutdownNow();
  }
}
