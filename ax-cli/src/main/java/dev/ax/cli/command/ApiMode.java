package dev.ax.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.api.client.ApiClient;
import dev.ax.cli.CliKeys;
import dev.ax.common.config.AxConfig;
import dev.ax.common.contract.AxJson;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;

/**
 * The operator commands through AX's HTTP API instead of the database and broker: when {@code
 * AX_API_URL} is set, a command that has an API route calls it (with {@code AX_API_TOKEN}) and
 * prints the API's JSON; an API error becomes a one-line failure with the API's code. Stateless;
 * used by the main thread.
 */
final class ApiMode {

  private ApiMode() {}

  /**
   * The API client {@code AX_API_URL} and {@code AX_API_TOKEN} name; empty when no URL is set.
   *
   * @throws CliFailure for a URL that is not http or https
   */
  static Optional<ApiClient> client() {
    AxConfig config = AxConfig.fromEnvironment(Map.of());
    String url = config.get(CliKeys.API_URL).strip();
    if (url.isEmpty()) {
      return Optional.empty();
    }
    URI uri;
    try {
      uri = URI.create(url);
    } catch (IllegalArgumentException e) {
      throw new CliFailure(ExitCodes.BAD_CONFIG, "AX_API_URL is no URL: " + url);
    }
    if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
      throw new CliFailure(
          ExitCodes.BAD_CONFIG,
          "AX_API_URL must be http:// or https://, e.g. http://127.0.0.1:8480/api/v1");
    }
    if (uri.getRawUserInfo() != null) {
      throw new CliFailure(
          ExitCodes.BAD_CONFIG,
          "AX_API_URL must not carry credentials (user:password@); give the token in AX_API_TOKEN");
    }
    String token = config.get(CliKeys.API_TOKEN).strip();
    String namespace = config.get(CliKeys.NAMESPACE).strip();
    try {
      return Optional.of(
          new ApiClient(
              uri, token.isEmpty() ? null : token, namespace.isEmpty() ? null : namespace));
    } catch (IllegalArgumentException e) {
      throw new CliFailure(ExitCodes.BAD_CONFIG, "AX_API_TOKEN or AX_NAMESPACE: " + e.getMessage());
    }
  }

  /** {@code GET path} and its JSON printed; exit 0. */
  static int print(ApiClient api, String path, PrintWriter out) throws InterruptedException {
    return printed(call(api, () -> api.get(path)), out);
  }

  /** {@code POST path} with {@code body} and the answer printed; exit 0. */
  static int post(ApiClient api, String path, ObjectNode body, PrintWriter out)
      throws InterruptedException {
    return printed(call(api, () -> api.post(path, body)), out);
  }

  /** Refuses a command that has no API route, saying so. */
  static CliFailure unsupported(String command) {
    return new CliFailure(
        ExitCodes.BAD_CONFIG,
        command
            + " has no route in the API: unset AX_API_URL to run it on the database and broker");
  }

  /** {@code ?a=1&b=x} of the non-null {@code params}, URL-encoded; empty when none. */
  static String query(Map<String, Object> params) {
    StringJoiner query = new StringJoiner("&", "?", "").setEmptyValue("");
    params.forEach(
        (name, value) -> {
          if (value != null) {
            query.add(name + "=" + URLEncoder.encode(value.toString(), StandardCharsets.UTF_8));
          }
        });
    return query.toString();
  }

  /** An ordered map of query parameters: {@code params("a", 1, "b", null)}. */
  static Map<String, Object> params(Object... namesAndValues) {
    Map<String, Object> params = new LinkedHashMap<>();
    for (int i = 0; i + 1 < namesAndValues.length; i += 2) {
      params.put((String) namesAndValues[i], namesAndValues[i + 1]);
    }
    return params;
  }

  /**
   * A path segment, URL-encoded; its dots too, so that an id {@code .} or {@code ..} (both valid)
   * names itself and not the path above it.
   */
  static String segment(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20").replace(".", "%2E");
  }

  /** The API's largest page; a listing asking for more is refused before the call. */
  static final int MAX_LIMIT = 1_000;

  /** Refuses {@code --limit} beyond what the API gives in one page. */
  static void checkLimit(int limit) {
    if (limit > MAX_LIMIT) {
      throw new CliFailure(
          ExitCodes.BAD_CONFIG,
          "--limit must be at most " + MAX_LIMIT + " through the API (AX_API_URL): " + limit);
    }
  }

  @FunctionalInterface
  private interface Call {
    JsonNode run() throws InterruptedException;
  }

  private static JsonNode call(ApiClient api, Call call) throws InterruptedException {
    try {
      return call.run();
    } catch (ApiClient.ApiError e) {
      throw new CliFailure(
          ExitCodes.FAILED,
          "the API at " + api.base() + " answered " + e.code() + ": " + e.getMessage());
    }
  }

  private static int printed(JsonNode answer, PrintWriter out) {
    try {
      out.println(AxJson.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(answer));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("a parsed JSON tree did not print", e);
    }
    out.flush();
    return ExitCodes.OK;
  }
}
