package dev.ax.dispatcher.executor.pool;

import dev.ax.dispatcher.executor.net.TargetRefusedException;
import dev.ax.spi.ExecutionResult;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import org.apache.hc.core5.http.NoHttpResponseException;

/**
 * The cause of a pool call's result when the call never reached its endpoint: the connection could
 * not be made (refused, no route, the connect timed out, the name did not resolve), or the
 * endpoint's socket was gone with no response at all (a kept-alive connection to an endpoint that
 * died: reset, broken pipe, closed before any response). That last case cannot prove the request
 * was not read; it is taken as not reached because the next endpoint gets the same {@code
 * Idempotency-Key}, and a dead endpoint is the case pools exist for. A pool run then goes on to its
 * next endpoint in the same attempt. So does an endpoint the HTTP policy refuses (allow-list, port,
 * denied range), which for a URL task fails for good: a registered endpoint must not turn a pool's
 * runs into dead letters. Any response, whatever its status, means the call reached its endpoint.
 */
public final class EndpointUnreachable extends IOException {

  private static final long serialVersionUID = 1L;

  private EndpointUnreachable(String message, Throwable cause) {
    super(message, cause);
  }

  /** Whether {@code failure} (of a send) means the connection was never made. */
  public static boolean isConnectFailure(IOException failure) {
    if (failure instanceof TargetRefusedException) {
      return false;
    }
    if (failure instanceof ConnectException
        || failure instanceof NoRouteToHostException
        || failure instanceof UnknownHostException
        || failure instanceof SocketException
        || failure instanceof NoHttpResponseException) {
      return true;
    }
    // The client turns a connect timeout into an HttpTimeoutException caused by Apache's
    // ConnectTimeoutException: only that timeout is a connect failure, not a slow response.
    return failure instanceof HttpTimeoutException
        && failure.getCause() != null
        && failure.getCause().getClass().getName().endsWith("ConnectTimeoutException");
  }

  /** The result a pool call returns for {@code failure}: retryable, marked as never reached. */
  public static ExecutionResult result(String url, IOException failure) {
    return ExecutionResult.failure(
        "cannot connect to " + url + ": " + failure, new EndpointUnreachable(url, failure));
  }

  /**
   * The result for an endpoint no call was made to: its host name does not resolve, or the HTTP
   * policy refuses it (allow-list, port, a denied address range), checked before the call or at
   * connect time. For a pool, an endpoint the policy refuses is unusable like a dead one: the run
   * goes on to the next endpoint, and an attempt whose every endpoint was refused fails retryably,
   * naming the refusal (the operator may fix the pool or the policy).
   */
  public static ExecutionResult unresolved(String url, String reason) {
    return ExecutionResult.failure(
        "cannot connect to " + url + ": " + reason, new EndpointUnreachable(reason, null));
  }

  /** Whether {@code result} says its call never reached its endpoint. */
  public static boolean marks(ExecutionResult result) {
    return !result.succeeded() && result.cause() instanceof EndpointUnreachable;
  }
}
