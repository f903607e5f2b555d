package dev.ax.common.contract;

import static dev.ax.common.contract.JsonFields.constantNamed;
import static dev.ax.common.contract.JsonFields.optionalStringMap;
import static dev.ax.common.contract.JsonFields.optionalText;
import static dev.ax.common.contract.JsonFields.requireText;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.ExecutorType;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads and writes the {@code executor} object of a task spec: its {@code type} ({@code HTTP},
 * {@code SHELL}, {@code IN_PROCESS}) and the fields that type takes. A shell script is a plain file
 * name, never a path, so a command cannot reach outside the script directory.
 *
 * <p>Stateless and thread-safe.
 */
final class ExecutorJson {

  private static final Pattern HANDLER = Pattern.compile("[A-Za-z0-9._-]{1,128}");
  private static final Pattern SCRIPT = Pattern.compile("[A-Za-z0-9._-]{1,128}");

  /** An HTTP header name: an RFC 9110 token, at most 128 characters. */
  private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}");

  private static final Set<String> HTTP_METHODS = Set.of("GET", "POST", "PUT", "PATCH", "DELETE");

  private ExecutorJson() {}

  /**
   * @throws InvalidFieldException with the reason when a field is missing or wrong
   */
  static ExecutorSpec read(JsonNode node, IntakeCheck check) {
    String typeText = requireText(node, "type", "executor.type").toUpperCase(Locale.ROOT);
    ExecutorType type = constantNamed(ExecutorType.class, typeText, "executor type");
    return switch (type) {
      case HTTP -> readHttp(node, check);
      case IN_PROCESS -> readInProcess(node);
      case SHELL -> readShell(node, check);
    };
  }

  static ObjectNode write(ExecutorSpec executor) {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("type", executor.type().name());
    if (executor instanceof ExecutorSpec.Http http) {
      if (http.pool() != null) {
        node.put("pool", http.pool());
        if (!http.path().isEmpty()) {
          node.put("path", http.path());
        }
      } else {
        node.put("url", http.url().toString());
      }
      node.put("method", http.method());
      if (!http.headers().isEmpty()) {
        ObjectNode headers = node.putObject("headers");
        http.headers().forEach(headers::put);
      }
      if (http.body() != null) {
        node.put("body", http.body());
      }
      if (!http.outputHeaders().isEmpty()) {
        ArrayNode shown = node.putArray("outputHeaders");
        http.outputHeaders().forEach(shown::add);
      }
    } else if (executor instanceof ExecutorSpec.InProcess inProcess) {
      node.put("handler", inProcess.handler());
    } else if (executor instanceof ExecutorSpec.Shell shell) {
      node.put("script", shell.script());
      ArrayNode args = node.putArray("args");
      shell.args().forEach(args::add);
    }
    return node;
  }

  /** {@code url} with whatever stands between {@code //} and {@code @} masked. */
  static String withoutUserInfo(String url) {
    return url.replaceFirst("//[^/?#]*@", "//****@");
  }

  private static ExecutorSpec readHttp(JsonNode node, IntakeCheck check) {
    if (node.hasNonNull("pool") || node.hasNonNull("path")) {
      PoolTargetJson.Target target = PoolTargetJson.read(node);
      return readCall(
          node,
          check,
          (m, h, b, o) -> ExecutorSpec.pooled(target.pool(), target.path(), m, h, b, o));
    }
    String urlText = requireText(node, "url", "executor.url");
    check.url(urlText);
    // A rejection's reason is echoed on a topic and in logs: never with a password in it.
    String shown = Echo.of(withoutUserInfo(urlText));
    URI url;
    try {
      url = new URI(urlText);
    } catch (URISyntaxException e) {
      throw new InvalidFieldException("executor.url is not a URI: " + shown);
    }
    String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https") || url.getHost() == null) {
      throw new InvalidFieldException("executor.url must be an http(s) URL with a host: " + shown);
    }
    check.noUserInfo(url, shown);
    return readCall(node, check, (m, h, b, o) -> ExecutorSpec.http(url, m, h, b, o));
  }

  /** Makes the spec of a call whose target was read. */
  @FunctionalInterface
  private interface CallMaker {
    ExecutorSpec make(
        String method, Map<String, String> headers, String body, List<String> outputHeaders);
  }

  /** The method, body and headers of an HTTP call, whatever its target. */
  private static ExecutorSpec readCall(JsonNode node, IntakeCheck check, CallMaker maker) {
    String method = optionalText(node, "method", "POST").toUpperCase(Locale.ROOT);
    if (!HTTP_METHODS.contains(method)) {
      throw new InvalidFieldException(
          "executor.method must be one of " + HTTP_METHODS + ": " + Echo.of(method));
    }
    String body = node.hasNonNull("body") ? bodyText(node.get("body")) : null;
    if (body != null) {
      check.body(body);
    }
    Map<String, String> headers =
        optionalStringMap(node, "headers", "executor.headers", check, check.limits().maxHeaders());
    check.headers(headers);
    return maker.make(method, headers, body, outputHeaders(node, check));
  }

  /**
   * The response headers a task's runs show ({@code outputHeaders}): header names, at most {@link
   * ExecutorSpec.Http#MAX_OUTPUT_HEADERS}; an empty list when absent.
   */
  private static List<String> outputHeaders(JsonNode node, IntakeCheck check) {
    JsonNode names = node.get("outputHeaders");
    if (names == null || names.isNull()) {
      return List.of();
    }
    if (!names.isArray()) {
      throw new InvalidFieldException("executor.outputHeaders must be an array of header names");
    }
    check.count("executor.outputHeaders", names.size(), ExecutorSpec.Http.MAX_OUTPUT_HEADERS);
    List<String> shown = new ArrayList<>();
    for (JsonNode name : names) {
      if (!name.isTextual() || !HEADER_NAME.matcher(name.asText()).matches()) {
        throw new InvalidFieldException(
            "executor.outputHeaders must be an array of header names: "
                + Echo.cut(name.toString()));
      }
      shown.add(name.asText());
    }
    return shown;
  }

  /** A JSON body given as an object or array is sent as its JSON text. */
  private static String bodyText(JsonNode body) {
    return body.isTextual() ? body.asText() : body.toString();
  }

  private static ExecutorSpec readInProcess(JsonNode node) {
    String handler = requireText(node, "handler", "executor.handler");
    if (!HANDLER.matcher(handler).matches()) {
      throw new InvalidFieldException(
          "executor.handler must match " + HANDLER.pattern() + ": " + Echo.of(handler));
    }
    return ExecutorSpec.inProcess(handler);
  }

  private static ExecutorSpec readShell(JsonNode node, IntakeCheck check) {
    String script = requireText(node, "script", "executor.script");
    if (!SCRIPT.matcher(script).matches() || script.contains("..")) {
      throw new InvalidFieldException(
          "executor.script must be a plain file name inside the script directory: "
              + Echo.of(script));
    }
    List<String> args = new ArrayList<>();
    JsonNode argsNode = node.get("args");
    if (argsNode != null && !argsNode.isNull()) {
      if (!argsNode.isArray()) {
        throw new InvalidFieldException("executor.args must be an array of strings");
      }
      check.count("executor.args", argsNode.size(), check.limits().maxArgs());
      for (JsonNode arg : argsNode) {
        if (!arg.isTextual()) {
          throw new InvalidFieldException(
              "executor.args must be an array of strings: " + Echo.cut(arg.toString()));
        }
        check.arg(args.size(), arg.asText());
        args.add(arg.asText());
      }
    }
    return ExecutorSpec.shell(script, args);
  }
}
