package dev.ax.dispatcher.executor;

import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.time.Clock;
import dev.ax.common.time.SystemClock;
import dev.ax.dispatcher.DispatcherKeys;
import dev.ax.dispatcher.executor.net.CallSigner;
import dev.ax.dispatcher.executor.net.HttpTargetPolicy;
import dev.ax.dispatcher.executor.net.PortList;
import dev.ax.spi.ExecutionContext;
import dev.ax.spi.ExecutionResult;
import dev.ax.spi.TaskExecutor;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Runs HTTP tasks with the JDK {@link HttpClient}: POST by default, method, headers and body from
 * the spec, only where {@link HttpTargetPolicy} allows (the host on the allow-list, an allowed
 * port, every address outside the denied ranges), never following redirects (a redirect could leave
 * them). Every request carries {@code X-AX-Trace-Id}, {@code X-AX-Instance-Id}, {@code
 * X-AX-Attempt} and {@code Idempotency-Key: instanceId} (the same on every attempt). A 2xx status
 * is success; any other is a failure with the status and a bounded excerpt of the body.
 *
 * <p>The request timeout is the attempt's deadline, and an interrupt (AX's timeout) cancels the
 * exchange, so no connection is left hanging. Thread-safe: the client is shared.
 */
public final class HttpTaskExecutor implements TaskExecutor {

  public static final String NAME = "http";
  private static final Set<String> RESERVED_HEADERS =
      Set.of(
          "x-ax-trace-id",
          "x-ax-task-trace-id",
          "x-ax-instance-id",
          "x-ax-attempt",
          "idempotency-key",
          "traceparent",
          "x-ax-signature",
          "x-ax-timestamp");

  private final HttpClient client;
  private final Clock clock;
  private final HttpTargetPolicy targets;
  private final Optional<CallSigner> signer;
  private final int maxExcerptChars;

  /** With the default ports and ranges, for {@code allowList}'s hosts, over plain http too. */
  public HttpTaskExecutor(HostAllowList allowList, int maxExcerptChars) {
    this(
        new HttpTargetPolicy(
            allowList,
            List.of(),
            PortList.parse(List.of(DispatcherKeys.HTTP_ALLOWED_PORTS.defaultValue().split(","))),
            false,
            InetAddress::getAllByName),
        Optional.empty(),
        maxExcerptChars,
        new SystemClock());
  }

  /**
   * @param targets where calls may go, checked before each
   * @param signer signs each call; empty: calls are not signed
   * @param clock the clock the attempt's deadline and a signature's timestamp are on (the stage's
   *     database clock)
   */
  public HttpTaskExecutor(
      HttpTargetPolicy targets, Optional<CallSigner> signer, int maxExcerptChars, Clock clock) {
    this.clock = clock;
    this.targets = targets;
    this.signer = signer;
    this.maxExcerptChars = maxExcerptChars;
    this.client =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(10))
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public ExecutionResult execute(ExecutionContext context)
      throws InterruptedException, HttpTimeoutException {
    ExecutorSpec.Http spec = (ExecutorSpec.Http) AttemptContext.of(context).task().executor();
    Optional<String> refusal = targets.refusal(spec.url());
    if (refusal.isPresent()) {
      return ExecutionResult.permanentFailure(refusal.get()); // no call was made
    }
    Duration remaining = Duration.between(clock.now(), context.deadline());
    if (remaining.isNegative() || remaining.isZero()) {
      remaining = Duration.ofMillis(1);
    }
    HttpRequest.Builder request =
        HttpRequest.newBuilder(spec.url())
            .timeout(remaining)
            .header("X-AX-Instance-Id", context.instanceId())
            .header("X-AX-Attempt", Integer.toString(context.attempt()))
            .header("Idempotency-Key", context.idempotencyKey());
    if (context.traceId() != null) {
      request
          .header("X-AX-Trace-Id", context.traceId())
          .header("X-AX-Task-Trace-Id", context.taskTraceId())
          .header("traceparent", context.traceparent());
    }
    for (Map.Entry<String, String> header : spec.headers().entrySet()) {
      String name = header.getKey();
      if (RESERVED_HEADERS.contains(name.toLowerCase(java.util.Locale.ROOT))) {
        continue;
      }
      try {
        request.header(name, header.getValue());
      } catch (IllegalArgumentException e) {
        // A task stored before intake checked headers: fails for good, the value unsaid.
        return ExecutionResult.permanentFailure(
            "executor.headers."
                + name
                + " cannot be sent: the HTTP client refuses its name or value");
      }
    }
    byte[] bytes = spec.body() == null ? new byte[0] : spec.body().getBytes(StandardCharsets.UTF_8);
    if (signer.isPresent()) {
      long epochSeconds = clock.now().getEpochSecond();
      request
          .header(CallSigner.TIMESTAMP_HEADER, Long.toString(epochSeconds))
          .header(
              CallSigner.SIGNATURE_HEADER,
              signer.get().signature(epochSeconds, context.idempotencyKey(), bytes));
    }
    HttpRequest.BodyPublisher body =
        spec.body() == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofByteArray(bytes);
    request.method(spec.method() == null ? "POST" : spec.method(), body);
    try {
      HttpResponse<InputStream> response =
          client.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
      try (InputStream stream = response.body()) {
        int status = response.statusCode();
        if (status >= 200 && status < 300) {
          return ExecutionResult.ok();
        }
        String excerpt = readExcerpt(stream);
        String error = "HTTP " + status + (excerpt.isEmpty() ? "" : ": " + excerpt);
        return status >= 400 && status < 500 && status != 408 && status != 429
            ? ExecutionResult.permanentFailure(error)
            : ExecutionResult.failure(error);
      }
    } catch (HttpTimeoutException e) {
      throw e; // the attempt's deadline passed: the runner records TIMEOUT
    } catch (IOException e) {
      return ExecutionResult.failure("HTTP call failed: " + e, e);
    }
  }

  private String readExcerpt(InputStream stream) throws IOException {
    if (maxExcerptChars == 0) {
      return "";
    }
    byte[] bytes = stream.readNBytes(maxExcerptChars * 4);
    String text = new String(bytes, StandardCharsets.UTF_8).replaceAll("\\s+", " ").trim();
    return text.length() > maxExcerptChars ? text.substring(0, maxExcerptChars) + "…" : text;
  }
}
