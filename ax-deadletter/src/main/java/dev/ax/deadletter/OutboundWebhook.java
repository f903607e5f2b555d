package dev.ax.deadletter;

import dev.ax.common.thread.DaemonThreads;
import io.micrometer.core.instrument.Counter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dead-letter stage's one way out to a webhook or chat robot: POSTs a JSON body on a thread of
 * its own, from a queue of {@link #QUEUE_CAPACITY}, with a {@link #TIMEOUT} connect and request
 * timeout. {@link #post} never blocks: a full queue is its {@code false}. A 2xx answer counts the
 * caller's {@code sent}, anything else (another status, a timeout, a refused connection) its {@code
 * failed} and one WARN line naming {@code what}, never the URL (a robot's URL carries its token).
 * Nothing is retried. Used by {@link WebhookAlerter} (dead letters) and {@link AlertRelay}
 * (Alertmanager's alerts), each with an instance of its own, so a flood of one cannot crowd out the
 * other. No address allow-list is applied: the URLs are the operator's own configuration, never a
 * task's input (unlike the HTTP executor's, which AX_HTTP_ALLOWED_HOSTS checks). Thread-safe.
 */
final class OutboundWebhook implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(OutboundWebhook.class);

  /** Connect and request timeout of one POST. */
  static final Duration TIMEOUT = Duration.ofSeconds(5);

  /** Bodies waiting for the sender thread; beyond it {@link #post} refuses. */
  static final int QUEUE_CAPACITY = 100;

  private final String name;
  private final HttpClient client = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
  private final ThreadPoolExecutor sender;

  /**
   * @param name what the posts are, for the thread's name and the log ("dead-letter webhook")
   * @param threadName the sender thread's name
   */
  OutboundWebhook(String name, String threadName) {
    this.name = name;
    this.sender =
        new ThreadPoolExecutor(
            1,
            1,
            0,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(QUEUE_CAPACITY),
            DaemonThreads.named(threadName));
  }

  /**
   * Queues one POST of {@code body} to {@code url}.
   *
   * @param what names the message in a WARN line (an instance id, an alert name)
   * @return false when the queue is full or the sender closed: nothing will be sent
   */
  boolean post(URI url, byte[] body, String what, Counter sent, Counter failed) {
    try {
      sender.execute(() -> send(url, body, what, sent, failed));
      return true;
    } catch (RejectedExecutionException e) {
      return false;
    }
  }

  private void send(URI url, byte[] body, String what, Counter sent, Counter failed) {
    try {
      HttpRequest request =
          HttpRequest.newBuilder(url)
              .timeout(TIMEOUT)
              .header("Content-Type", "application/json; charset=utf-8")
              .POST(HttpRequest.BodyPublishers.ofByteArray(body))
              .build();
      HttpResponse<Void> response = client.send(request, HttpResponse.BodyHandlers.discarding());
      if (response.statusCode() / 100 == 2) {
        sent.increment();
      } else {
        failed.increment();
        log.warn("{} answered HTTP {} for {}", name, response.statusCode(), what);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      // Caught so that one failed POST never ends the sender thread.
      failed.increment();
      log.warn("{} failed for {}: {}", name, what, e.toString());
    }
  }

  /** Lets queued posts go out for up to {@link #TIMEOUT}, then stops the sender. */
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
