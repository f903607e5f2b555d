package dev.ax.deadletter;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.util.Map;

/**
 * POSTs one JSON alert per new dead letter to the configured webhook, through an {@link
 * OutboundWebhook} of its own (one thread, a bounded queue), at most {@code perMinute} a minute (a
 * fixed one-minute window). A slow, failing or absent webhook never blocks the stage: alerts that
 * do not fit are counted and dropped. The URL is never logged (it often carries a token).
 * Thread-safe.
 */
final class WebhookAlerter implements AutoCloseable {

  private final URI url;
  private final AlertFormat format;
  private final int perMinute;
  private final OutboundWebhook outbound =
      new OutboundWebhook("Dead-letter webhook", "ax-deadletter-webhook");
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
    String what = "dead letter " + alert.get("instanceId");
    if (!outbound.post(url, format.body(alert), what, sent, failed)) {
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

  @Override
  public void close() {
    outbound.close();
  }
}
