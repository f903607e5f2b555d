package dev.ax.dispatcher.executor.net;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.http.HttpTimeoutException;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import javax.net.ssl.SSLContext;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.ssl.DefaultClientTlsStrategy;
import org.apache.hc.client5.http.ssl.HostnameVerificationPolicy;
import org.apache.hc.client5.http.ssl.HttpsSupport;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;

/**
 * The HTTP executor's client: Apache HttpClient 5 (classic) whose only resolver is a {@link
 * CheckedDnsResolver}, so every socket it opens goes to an address {@link HttpTargetPolicy} checked
 * in the very lookup that produced it. It follows no redirect, retries nothing (AX retries
 * attempts), keeps no cookies and uses no proxy. TLS is the JVM's default context with the host
 * name verified against the certificate (JSSE's check and HttpClient's, {@link
 * HostnameVerificationPolicy#BOTH}); the request's host stays the name, so connecting to the
 * checked address still verifies the name.
 *
 * <p>Pool: at most {@value #MAX_CONNECTIONS} connections, {@value #MAX_CONNECTIONS_PER_ROUTE} per
 * route (scheme, host name, port); a connection idle for {@link #IDLE_CLOSE} is closed, none is
 * kept past {@link #TIME_TO_LIVE}. A pooled connection is reused only for its own route, and its
 * address was checked when it was opened. A call that finds the pool full waits for a connection
 * within its deadline.
 *
 * <p>Each exchange runs on a thread of its own (a cached pool of daemon threads) while the caller
 * waits for it until the deadline: the deadline or an interrupt of the caller (AX's timeout or
 * cancel) aborts the exchange with {@link HttpUriRequestBase#cancel()}, which closes its connection
 * at once, and the caller returns without waiting for blocking socket I/O. Thread-safe; {@link
 * #close()} closes the pool and its connections.
 */
public final class CheckedHttpClient implements AutoCloseable {

  public static final int MAX_CONNECTIONS = 512;
  public static final int MAX_CONNECTIONS_PER_ROUTE = 128;
  static final Duration MAX_CONNECT_TIMEOUT = Duration.ofSeconds(10);
  static final TimeValue IDLE_CLOSE = TimeValue.ofSeconds(30);
  static final TimeValue TIME_TO_LIVE = TimeValue.ofMinutes(5);

  /** Responses whose body is longer than this (or of unknown length) close their connection. */
  private static final long MAX_DRAINED_BYTES = 64 * 1024;

  /**
   * What a call got back.
   *
   * @param status the HTTP status
   * @param head the first bytes of the body (of a non-2xx response only, unless asked for)
   * @param headers the values of the response headers asked for that it had, by the name asked for,
   *     in the order asked (several values of one name joined with {@code ", "})
   */
  public record Response(int status, byte[] head, Map<String, String> headers) {

    public Response(int status, byte[] head) {
      this(status, head, Map.of());
    }
  }

  private final PoolingHttpClientConnectionManager pool;
  private final CloseableHttpClient client;
  private final ExecutorService exchanges;

  /** Over the JVM's default TLS context (its trust store). */
  public CheckedHttpClient(HttpTargetPolicy policy) {
    this(policy, defaultTls());
  }

  /**
   * @param tls the context whose trust managers judge servers' certificates (a test's own CA); the
   *     host name is verified whatever it is
   */
  public CheckedHttpClient(HttpTargetPolicy policy, SSLContext tls) {
    this.pool =
        PoolingHttpClientConnectionManagerBuilder.create()
            .setDnsResolver(new CheckedDnsResolver(policy))
            .setTlsSocketStrategy(
                new DefaultClientTlsStrategy(
                    tls,
                    HostnameVerificationPolicy.BOTH,
                    HttpsSupport.getDefaultHostnameVerifier()))
            .setMaxConnTotal(MAX_CONNECTIONS)
            .setMaxConnPerRoute(MAX_CONNECTIONS_PER_ROUTE)
            .setDefaultConnectionConfig(
                ConnectionConfig.custom()
                    .setConnectTimeout(Timeout.of(MAX_CONNECT_TIMEOUT))
                    .setTimeToLive(TIME_TO_LIVE)
                    .setValidateAfterInactivity(TimeValue.ofSeconds(2))
                    .build())
            .build();
    this.client =
        HttpClients.custom()
            .setConnectionManager(pool)
            .disableRedirectHandling()
            .disableAutomaticRetries()
            .disableCookieManagement()
            .disableAuthCaching()
            .disableContentCompression()
            .evictIdleConnections(IDLE_CLOSE)
            .evictExpiredConnections()
            .build();
    this.exchanges = Executors.newCachedThreadPool(daemonThreads());
  }

  /**
   * Sends {@code request} and reads its status, and up to {@code headBytes} of the body when the
   * status is not 2xx.
   *
   * @param remaining the time left for the whole exchange: the pool wait, connect (at most {@link
   *     #MAX_CONNECT_TIMEOUT}), each read, and the exchange as a whole
   * @throws InterruptedException the caller was interrupted; the exchange was aborted
   * @throws HttpTimeoutException the time ran out; the exchange was aborted
   * @throws TargetRefusedException the lookup made to connect refused the target
   * @throws IOException the call failed otherwise
   */
  public Response send(HttpUriRequestBase request, Duration remaining, int headBytes)
      throws InterruptedException, IOException {
    return send(request, remaining, headBytes, false, List.of());
  }

  /**
   * As {@link #send(HttpUriRequestBase, Duration, int)}, and reads up to {@code headBytes} of the
   * body of a 2xx response too when {@code headOf2xx}, and the values of {@code headerNames}: never
   * more of the body than that into memory.
   */
  public Response send(
      HttpUriRequestBase request,
      Duration remaining,
      int headBytes,
      boolean headOf2xx,
      List<String> headerNames)
      throws InterruptedException, IOException {
    request.setConfig(config(remaining));
    Future<Response> exchange =
        exchanges.submit(() -> exchange(request, headBytes, headOf2xx, headerNames));
    try {
      return exchange.get(remaining.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      request.cancel(); // closes the connection: nothing is left hanging
      throw e;
    } catch (TimeoutException e) {
      request.cancel();
      throw new HttpTimeoutException("no response within " + remaining);
    } catch (ExecutionException e) {
      throw failure(e.getCause());
    }
  }

  @SuppressWarnings("deprecation") // a connect timeout per request: the pool's config is per route
  private static RequestConfig config(Duration remaining) {
    Timeout left = Timeout.of(remaining);
    return RequestConfig.custom()
        .setConnectionRequestTimeout(left)
        .setConnectTimeout(
            Timeout.of(
                remaining.compareTo(MAX_CONNECT_TIMEOUT) < 0 ? remaining : MAX_CONNECT_TIMEOUT))
        .setResponseTimeout(left)
        .setRedirectsEnabled(false)
        .build();
  }

  private Response exchange(
      HttpUriRequestBase request, int headBytes, boolean headOf2xx, List<String> headerNames)
      throws IOException {
    ClassicHttpResponse response = client.executeOpen(null, request, null);
    boolean cancelled = false;
    try {
      int status = response.getCode();
      HttpEntity entity = response.getEntity();
      byte[] head = new byte[0];
      boolean readHead = headOf2xx || status < 200 || status >= 300;
      if (entity != null && readHead && headBytes > 0) {
        InputStream body = entity.getContent();
        head = body.readNBytes(headBytes);
      }
      long length = entity == null ? 0 : entity.getContentLength();
      if (length < 0 || length > MAX_DRAINED_BYTES) {
        request.cancel(); // rather than read an unbounded rest to keep the connection
        cancelled = true;
      }
      return new Response(status, head, headers(response, headerNames));
    } finally {
      try {
        response.close();
      } catch (IOException e) {
        if (!cancelled) {
          throw e;
        } // closing what was cancelled fails on the closed socket: the answer is read already
      }
    }
  }

  /** The values of {@code names} in {@code response}, by the name asked for, those it has. */
  private static Map<String, String> headers(ClassicHttpResponse response, List<String> names) {
    Map<String, String> headers = new LinkedHashMap<>();
    for (String name : names) {
      Header[] values = response.getHeaders(name);
      if (values.length > 0) {
        headers.put(
            name, Arrays.stream(values).map(Header::getValue).collect(Collectors.joining(", ")));
      }
    }
    return headers;
  }

  /** What an exchange threw, as {@link #send} throws it. */
  private static IOException failure(Throwable thrown) {
    for (Throwable t = thrown; t != null; t = t.getCause()) {
      if (t instanceof TargetRefusedException refused) {
        return refused;
      }
    }
    if (thrown instanceof InterruptedIOException timeout) {
      // The connect, a read or the wait for a pooled connection timed out within the deadline.
      HttpTimeoutException e = new HttpTimeoutException(String.valueOf(timeout.getMessage()));
      e.initCause(timeout);
      return e;
    }
    if (thrown instanceof IOException io) {
      return io;
    }
    if (thrown instanceof RuntimeException runtime) {
      throw runtime;
    }
    if (thrown instanceof Error error) {
      throw error;
    }
    return new IOException(thrown);
  }

  private static SSLContext defaultTls() {
    try {
      return SSLContext.getDefault();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JVM has no default TLS context", e);
    }
  }

  private static ThreadFactory daemonThreads() {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, "ax-http-exchange-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  /** Closes every connection and ends the exchange threads; calls still running fail. */
  @Override
  public void close() {
    exchanges.shutdownNow();
    client.close(CloseMode.IMMEDIATE);
    pool.close(CloseMode.IMMEDIATE);
  }
}
