package dev.ax.dispatcher.executor;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.common.contract.AxJson;
import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.time.Clock;
import dev.ax.common.time.SystemClock;
import dev.ax.dispatcher.DispatcherKeys;
import dev.ax.dispatcher.executor.net.CallSigner;
import dev.ax.dispatcher.executor.net.CallSigners;
import dev.ax.dispatcher.executor.net.CheckedHttpClient;
import dev.ax.dispatcher.executor.net.HttpTargetPolicy;
import dev.ax.dispatcher.executor.net.PortList;
import dev.ax.dispatcher.executor.net.TargetRefusedException;
import dev.ax.dispatcher.executor.pool.EndpointUnreachable;
import dev.ax.dispatcher.executor.pool.PoolCalls;
import dev.ax.spi.ExecutionContext;
import dev.ax.spi.ExecutionResult;
import dev.ax.spi.TaskExecutor;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;

/**
 * Runs HTTP tasks with a {@link CheckedHttpClient} (Apache HttpClient 5): POST by default, method,
 * headers and body from the spec, only where {@link HttpTargetPolicy} allows (the host on the
 * allow-list, an allowed port, every address outside the denied ranges), never following redirects
 * (a redirect could leave them). The policy is checked before the call, so a refused target fails
 * for good without a connection attempt, and again by the client's resolver when it connects, so
 * the socket goes only to an address that was checked (a DNS answer that changed in between is
 * refused the same way). Every request carries {@code X-AX-Trace-Id}, {@code X-AX-Instance-Id},
 * {@code X-AX-Attempt}, {@code Idempotency-Key: instanceId} (the same on every attempt), {@code
 * X-AX-Shard-Index} and {@code X-AX-Shard-Total} (0 and 1 when the task is not sharded). A 2xx
 * status is success; any other is a failure with the status and a bounded excerpt of the body.
 *
 * <p>Every call that got a response says so in its result's output, on success and failure alike:
 * {@code HTTP <status>}, the response headers the task lists in {@code outputHeaders} (never {@link
 * #NEVER_SHOWN} ones), a blank line and the first {@link #OUTPUT_BODY_BYTES} bytes of the body
 * decoded as UTF-8 (malformed bytes replaced): only that much of a body is read into memory. The
 * signing secret is masked in it here; the rest of the masking is the dispatcher's ({@link
 * OutputMask}).
 *
 * <p>The request timeout is the attempt's deadline, and an interrupt (AX's timeout) cancels the
 * exchange, so no connection is left hanging.
 *
 * <p>A pool task ({@code "pool"} instead of {@code "url"}) is sent through {@link PoolCalls}: the
 * same request (same headers, same {@code Idempotency-Key}) to base URL + path of the endpoints the
 * pool routes to, the next only when a call never reached its endpoint. Thread-safe: the client is
 * shared; {@link #close()} closes its connection pool.
 */
public final class HttpTaskExecutor implements TaskExecutor, AutoCloseable {

  public static final String NAME = "http";

  /** Methods whose params go into the query string rather than a body. */
  private static final Set<String> QUERY_METHODS = Set.of("GET", "HEAD", "OPTIONS");

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

  /** An HTTP header name: an RFC 9110 token (as intake checks it). */
  private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

  /** Headers the HTTP client sets itself: never taken from a task. */
  private static final Set<String> CLIENT_HEADERS =
      Set.of("connection", "content-length", "expect", "host", "upgrade", "transfer-encoding");

  /** Bytes of a response body read for the run's output. */
  public static final int OUTPUT_BODY_BYTES = 4096;

  /** How much further than {@link #OUTPUT_BODY_BYTES} the body is read, for the mask. */
  static final int MASK_MARGIN_BYTES = 512;

  /** Response headers a run's output never shows, whatever the task lists: credentials. */
  static final Set<String> NEVER_SHOWN =
      Set.of("authorization", "proxy-authorization", "cookie", "set-cookie");

  /** The status at the start of an HTTP run's output. */
  private static final Pattern STATUS_LINE = Pattern.compile("^HTTP (\\d{3})(?:\\n|$)");

  private final CheckedHttpClient client;
  private final Clock clock;
  private final HttpTargetPolicy targets;
  private final CallSigners signers;
  private final int maxExcerptChars;
  private final Optional<PoolCalls> pools;

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
    this(targets, CallSigners.shared(signer), maxExcerptChars, clock);
  }

  /**
   * @param signers which secret signs a call, by its namespace
   */
  public HttpTaskExecutor(
      HttpTargetPolicy targets, CallSigners signers, int maxExcerptChars, Clock clock) {
    this(targets, signers, maxExcerptChars, clock, Optional.empty());
  }

  /**
   * @param pools runs pool tasks; empty: a pool task fails (retryably) in this process
   */
  public HttpTaskExecutor(
      HttpTargetPolicy targets,
      CallSigners signers,
      int maxExcerptChars,
      Clock clock,
      Optional<PoolCalls> pools) {
    this.pools = pools;
    this.clock = clock;
    this.targets = targets;
    this.signers = signers;
    this.maxExcerptChars = maxExcerptChars;
    this.client = new CheckedHttpClient(targets);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public ExecutionResult execute(ExecutionContext context)
      throws InterruptedException, HttpTimeoutException {
    ExecutorSpec.Http spec = (ExecutorSpec.Http) AttemptContext.of(context).task().executor();
    if (spec.pool() == null) {
      return execute(context, spec, spec.url(), false);
    }
    if (pools.isEmpty()) {
      return ExecutionResult.failure("executor pools are not available in this process");
    }
    return pools
        .get()
        .run(
            spec.pool(),
            spec.path(),
            // The routing key: the task, or each shard of it, so that CONSISTENT_HASH spreads a
            // sharded firing over the endpoints and still sends shard i to the same one each time.
            context.shardTotal() > 1
                ? context.taskId() + "#" + context.shardIndex()
                : context.taskId(),
            context.deadline(),
            url -> execute(context, spec, url, true));
  }

  /** One call of the attempt to {@code url}; {@code pooled}: a failed connect is marked so. */
  private ExecutionResult execute(
      ExecutionContext context, ExecutorSpec.Http spec, URI url, boolean pooled)
      throws InterruptedException, HttpTimeoutException {
    Optional<String> refusal = targets.refusal(url);
    if (refusal.isPresent()) {
      if (pooled) {
        // An endpoint the policy refuses is unusable, not the task's fault: the next one is tried
        // (a registered endpoint must not turn a pool's runs into dead letters).
        return EndpointUnreachable.unresolved(url.toString(), refusal.get());
      }
      return ExecutionResult.permanentFailure(refusal.get()); // no call was made
    }
    Duration remaining = Duration.between(clock.now(), context.deadline());
    if (remaining.isNegative() || remaining.isZero()) {
      remaining = Duration.ofMillis(1);
    }
    String method = spec.method() == null ? "POST" : spec.method();
    Map<String, String> params = AttemptContext.of(context).task().params();
    boolean paramsInQuery = spec.body() == null && !params.isEmpty() && !carriesBody(method);
    boolean paramsAsBody = spec.body() == null && !params.isEmpty() && carriesBody(method);
    HttpUriRequestBase request =
        new HttpUriRequestBase(method, paramsInQuery ? withQuery(url, params) : url);
    request.addHeader("X-AX-Instance-Id", context.instanceId());
    request.addHeader("X-AX-Attempt", Integer.toString(context.attempt()));
    request.addHeader("Idempotency-Key", context.idempotencyKey());
    request.addHeader("X-AX-Shard-Index", Integer.toString(context.shardIndex()));
    request.addHeader("X-AX-Shard-Total", Integer.toString(context.shardTotal()));
    if (context.traceId() != null) {
      request.addHeader("X-AX-Trace-Id", context.traceId());
      request.addHeader("X-AX-Task-Trace-Id", context.taskTraceId());
      request.addHeader("traceparent", context.traceparent());
    }
    for (Map.Entry<String, String> header : spec.headers().entrySet()) {
      String name = header.getKey();
      if (RESERVED_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
        continue;
      }
      if (!sendable(name, header.getValue())) {
        // A task stored before intake checked headers: fails for good, the value unsaid.
        return ExecutionResult.permanentFailure(
            "executor.headers."
                + name
                + " cannot be sent: the HTTP client refuses its name or value");
      }
      request.addHeader(name, header.getValue());
    }
    byte[] bytes =
        spec.body() != null
            ? spec.body().getBytes(StandardCharsets.UTF_8)
            : paramsAsBody ? paramsJson(params) : new byte[0];
    if (paramsAsBody && !request.containsHeader("Content-Type")) {
      request.addHeader("Content-Type", "application/json");
    }
    Optional<CallSigner> signer = signers.forInstance(context.instanceId());
    if (signer.isPresent()) {
      long epochSeconds = clock.now().getEpochSecond();
      request.addHeader(CallSigner.TIMESTAMP_HEADER, Long.toString(epochSeconds));
      request.addHeader(
          CallSigner.SIGNATURE_HEADER,
          signer.get().signature(epochSeconds, context.idempotencyKey(), bytes));
    }
    if (spec.body() != null || paramsAsBody) {
      request.setEntity(new ByteArrayEntity(bytes, null));
    }
    List<String> shownHeaders =
        spec.outputHeaders().stream()
            .filter(name -> !NEVER_SHOWN.contains(name.toLowerCase(Locale.ROOT)))
            .limit(ExecutorSpec.Http.MAX_OUTPUT_HEADERS)
            .toList();
    // Masked here, before the body is cut, so that no secret is cut in two and half kept.
    OutputMask mask =
        OutputMask.of(
            context.params(),
            spec.headers(),
            signer.map(s -> List.of(s.secretToMask())).orElse(List.of()));
    return call(request, remaining, shownHeaders, pooled, mask);
  }

  /** The status an HTTP run's output starts with, or null when it does not start with one. */
  public static Integer statusOf(String output) {
    if (output == null) {
      return null;
    }
    Matcher status = STATUS_LINE.matcher(output);
    return status.find() ? Integer.valueOf(status.group(1)) : null;
  }

  /**
   * The output of a response: {@code HTTP <status>}, the headers asked for, and after a blank line
   * the start of the body, masked by {@code mask} before the body is cut to {@link
   * #OUTPUT_BODY_BYTES}: the body is read {@link #MASK_MARGIN_BYTES} further, so a secret that
   * would straddle the cut is masked whole first.
   */
  static String output(CheckedHttpClient.Response response, OutputMask mask) {
    StringBuilder text = new StringBuilder("HTTP ").append(response.status());
    response
        .headers()
        .forEach((name, value) -> text.append('\n').append(name).append(": ").append(value));
    byte[] head = response.head();
    if (head.length > 0) {
      int length = Math.min(head.length, OUTPUT_BODY_BYTES + MASK_MARGIN_BYTES);
      String body = mask.apply(new String(head, 0, length, StandardCharsets.UTF_8));
      text.append("\n\n").append(body, 0, Math.min(body.length(), OUTPUT_BODY_BYTES));
    }
    return mask.apply(text.toString());
  }

  /** Whether {@code method} sends the task's params as a JSON body (not GET, HEAD, OPTIONS). */
  private static boolean carriesBody(String method) {
    return !QUERY_METHODS.contains(method.toUpperCase(Locale.ROOT));
  }

  /** {@code url} with {@code params} appended as query parameters, by name, form-encoded. */
  static URI withQuery(URI url, Map<String, String> params) {
    StringBuilder query = new StringBuilder();
    new TreeMap<>(params)
        .forEach(
            (name, value) ->
                query
                    .append(query.length() == 0 ? "" : "&")
                    .append(URLEncoder.encode(name, StandardCharsets.UTF_8))
                    .append('=')
                    .append(URLEncoder.encode(value, StandardCharsets.UTF_8)));
    String text = url.toString();
    int fragment = text.indexOf('#');
    String head = fragment < 0 ? text : text.substring(0, fragment);
    String tail = fragment < 0 ? "" : text.substring(fragment);
    return URI.create(head + (head.contains("?") ? "&" : "?") + query + tail);
  }

  /** The params as one JSON object of strings, by name. */
  private static byte[] paramsJson(Map<String, String> params) {
    ObjectNode json = AxJson.MAPPER.createObjectNode();
    new TreeMap<>(params).forEach(json::put);
    return AxJson.write(json);
  }

  /**
   * Sends the request: a refusal at connect time (the name now resolves elsewhere) fails for good,
   * as the early check would have; a timeout or an interrupt is thrown for the runner to record.
   */
  private ExecutionResult call(
      HttpUriRequestBase request,
      Duration remaining,
      List<String> shownHeaders,
      boolean pooled,
      OutputMask mask)
      throws InterruptedException, HttpTimeoutException {
    CheckedHttpClient.Response response;
    try {
      response =
          client.send(
              request,
              remaining,
              Math.max(maxExcerptChars * 4, OUTPUT_BODY_BYTES + MASK_MARGIN_BYTES),
              true,
              shownHeaders);
    } catch (TargetRefusedException e) {
      // No connection was opened: for good for a URL task, the next endpoint for a pool's.
      return pooled
          ? EndpointUnreachable.unresolved(request.getRequestUri(), e.reason())
          : ExecutionResult.permanentFailure(e.reason());
    } catch (IOException e) {
      if (pooled && EndpointUnreachable.isConnectFailure(e)) {
        return EndpointUnreachable.result(
            request.getScheme() + "://" + request.getAuthority(), e); // a pool tries the next
      }
      if (e instanceof HttpTimeoutException timeout) {
        throw timeout; // the attempt's deadline passed: the runner records TIMEOUT
      }
      return ExecutionResult.failure("HTTP call failed: " + e, e);
    }
    int status = response.status();
    String output = output(response, mask);
    if (status >= 200 && status < 300) {
      return ExecutionResult.ok(output);
    }
    String excerpt = excerpt(response.head());
    String error = "HTTP " + status + (excerpt.isEmpty() ? "" : ": " + excerpt);
    return (status >= 400 && status < 500 && status != 408 && status != 429
            ? ExecutionResult.permanentFailure(error)
            : ExecutionResult.failure(error))
        .withOutput(output);
  }

  /**
   * Not a token, a name the client sets itself, or a control or non-ASCII character in the value
   * (as intake refuses them): cannot be sent.
   */
  private static boolean sendable(String name, String value) {
    return HEADER_NAME.matcher(name).matches()
        && !CLIENT_HEADERS.contains(name.toLowerCase(Locale.ROOT))
        && value != null
        && value.chars().allMatch(c -> c == '\t' || (c >= 0x20 && c < 0x7f));
  }

  private String excerpt(byte[] head) {
    if (maxExcerptChars == 0) {
      return "";
    }
    String text = new String(head, StandardCharsets.UTF_8).replaceAll("\\s+", " ").trim();
    return text.length() > maxExcerptChars ? text.substring(0, maxExcerptChars) + "…" : text;
  }

  /** Closes the client's connections; calls still running fail. */
  @Override
  public void close() {
    client.close();
  }
}
