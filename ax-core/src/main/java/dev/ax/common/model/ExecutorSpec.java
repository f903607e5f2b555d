package dev.ax.common.model;

import java.net.URI;
import java.util.List;
import java.util.Map;

/**
 * What to run: one record per {@link ExecutorType}, each with only the fields its type uses (a
 * sealed union: no field of another type to leave null). The JSON form is {@code ExecutorJson}'s,
 * whose field {@code type} names the record.
 *
 * <p>Immutable; thread-safe.
 */
public sealed interface ExecutorSpec
    permits ExecutorSpec.Http, ExecutorSpec.Shell, ExecutorSpec.InProcess {

  /** The type this record stands for. */
  ExecutorType type();

  /**
   * An HTTP call, to a URL or to an endpoint of an executor pool.
   *
   * @param url the target; null when {@code pool} names one
   * @param method the method (POST when the JSON gave none)
   * @param headers extra request headers, never null
   * @param body the request body, may be null
   * @param outputHeaders the response headers whose values the run's stored output shows (at most
   *     {@link #MAX_OUTPUT_HEADERS}), never null; credentials' headers are never shown
   * @param pool the executor pool whose endpoint is called instead of {@code url}; null for a URL
   * @param path appended to the pool endpoint's base URL; empty for a URL or no path
   */
  record Http(
      URI url,
      String method,
      Map<String, String> headers,
      String body,
      List<String> outputHeaders,
      String pool,
      String path)
      implements ExecutorSpec {

    /** The most response headers a task may ask to see in its runs' output. */
    public static final int MAX_OUTPUT_HEADERS = 16;

    public Http {
      headers = headers == null ? Map.of() : Map.copyOf(headers);
      outputHeaders = outputHeaders == null ? List.of() : List.copyOf(outputHeaders);
      path = path == null ? "" : path;
      if ((url == null) == (pool == null)) {
        throw new IllegalArgumentException("an HTTP executor has exactly one of url and pool");
      }
    }

    /** A call to {@code url}, without output headers. */
    public Http(URI url, String method, Map<String, String> headers, String body) {
      this(url, method, headers, body, List.of());
    }

    /** A call to {@code url}. */
    public Http(
        URI url,
        String method,
        Map<String, String> headers,
        String body,
        List<String> outputHeaders) {
      this(url, method, headers, body, outputHeaders, null, null);
    }

    @Override
    public ExecutorType type() {
      return ExecutorType.HTTP;
    }
  }

  /**
   * A script run as an argument vector.
   *
   * @param script a script name inside the configured script directory
   * @param args its arguments, never null
   */
  record Shell(String script, List<String> args) implements ExecutorSpec {
    public Shell {
      args = args == null ? List.of() : List.copyOf(args);
    }

    @Override
    public ExecutorType type() {
      return ExecutorType.SHELL;
    }
  }

  /**
   * A Java {@code TaskExecutor} of this process.
   *
   * @param handler the name of the {@code TaskExecutor} to call
   */
  record InProcess(String handler) implements ExecutorSpec {
    @Override
    public ExecutorType type() {
      return ExecutorType.IN_PROCESS;
    }
  }

  static Http http(URI url, String method, Map<String, String> headers, String body) {
    return new Http(url, method, headers, body);
  }

  static Http http(
      URI url,
      String method,
      Map<String, String> headers,
      String body,
      List<String> outputHeaders) {
    return new Http(url, method, headers, body, outputHeaders);
  }

  /** A call to an endpoint of executor pool {@code pool}, at {@code path} under its base URL. */
  static Http pooled(
      String pool,
      String path,
      String method,
      Map<String, String> headers,
      String body,
      List<String> outputHeaders) {
    return new Http(null, method, headers, body, outputHeaders, pool, path);
  }

  static Shell shell(String script, List<String> args) {
    return new Shell(script, args);
  }

  static InProcess inProcess(String handler) {
    return new InProcess(handler);
  }
}
