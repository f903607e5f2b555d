package dev.ax.common.model;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What to run. Fields that do not apply to {@link #type()} are null or empty.
 *
 * @param url HTTP: the target
 * @param method HTTP: the method, POST by default
 * @param headers HTTP: extra request headers
 * @param body HTTP: the request body, may be null
 * @param handler IN_PROCESS: the name of the {@code TaskExecutor} to call
 * @param script SHELL: a script name inside the configured script directory
 * @param args SHELL: its arguments
 */
public record ExecutorSpec(
    ExecutorType type,
    URI url,
    String method,
    Map<String, String> headers,
    String body,
    String handler,
    String script,
    List<String> args) {

  public ExecutorSpec {
    Objects.requireNonNull(type, "type");
    headers = headers == null ? Map.of() : Map.copyOf(headers);
    args = args == null ? List.of() : List.copyOf(args);
  }

  public static ExecutorSpec http(
      URI url, String method, Map<String, String> headers, String body) {
    return new ExecutorSpec(ExecutorType.HTTP, url, method, headers, body, null, null, null);
  }

  public static ExecutorSpec inProcess(String handler) {
    return new ExecutorSpec(ExecutorType.IN_PROCESS, null, null, null, null, handler, null, null);
  }
}
