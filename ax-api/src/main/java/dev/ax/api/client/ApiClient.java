package dev.ax.api.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.common.contract.AxJson;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * A client of AX's HTTP API ({@code /api/v1}, docs/contract/openapi.json): GET and POST of JSON,
 * with a bearer token when one is given. An answer other than 2xx becomes an {@link ApiError} with
 * the API's stable code and message. Thread-safe (the JDK's {@link HttpClient} is).
 */
public final class ApiClient {

  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

  /** An answer that is not 2xx, or no answer. */
  public static final class ApiError extends RuntimeException {
    private final int status;
    private final String code;

    ApiError(int status, String code, String message) {
      super(message);
      this.status = status;
      this.code = code;
    }

    /** The HTTP status; 0 when the server did not answer. */
    public int status() {
      return status;
    }

    /** The API's error code, e.g. {@code not_found}; {@code unreachable} without an answer. */
    public String code() {
      return code;
    }
  }

  private final URI base;
  private final String token;
  private final String namespace;
  private final HttpClient http;

  /**
   * @param base the API's root, e.g. {@code http://127.0.0.1:8480/api/v1}
   * @param token a bearer token, or null to send none
   */
  public ApiClient(URI base, String token) {
    this(base, token, null);
  }

  /**
   * @param namespace sent as {@code ?namespace=} with every request; null: none (the default one)
   * @throws IllegalArgumentException for a namespace that is no valid name
   */
  public ApiClient(URI base, String token, String namespace) {
    if (namespace != null && dev.ax.common.model.Namespace.parse(namespace).isEmpty()) {
      throw new IllegalArgumentException(
          "the namespace must match "
              + dev.ax.common.model.Namespace.NAME.pattern()
              + ": "
              + namespace);
    }
    this.namespace = namespace;
    if (token != null && !isHeaderSafe(token)) {
      // Never the token itself in the message: it is a secret.
      throw new IllegalArgumentException(
          "the API token holds characters a header cannot carry (a space, a line break or a"
              + " non-ASCII character)");
    }
    String text = base.toString();
    this.base = URI.create(text.endsWith("/") ? text : text + "/");
    this.token = token;
    this.http = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).build();
  }

  /** {@code GET path} (relative to the API's root, e.g. {@code tasks/x}); its JSON body. */
  public JsonNode get(String path) throws InterruptedException {
    return send(request(path).GET());
  }

  /** {@code POST path} with {@code body} as JSON; the JSON answer. */
  public JsonNode post(String path, ObjectNode body) throws InterruptedException {
    return send(
        request(path)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(AxJson.write(body))));
  }

  /** The API's root this client talks to. */
  public URI base() {
    return base;
  }

  /** True for visible ASCII only: what an Authorization header can carry unchanged. */
  private static boolean isHeaderSafe(String token) {
    return !token.isEmpty() && token.chars().allMatch(c -> c > 0x20 && c < 0x7f);
  }

  private HttpRequest.Builder request(String path) {
    String relative = path.startsWith("/") ? path.substring(1) : path;
    if (namespace != null) {
      relative += (relative.contains("?") ? "&" : "?") + "namespace=" + namespace;
    }
    HttpRequest.Builder request =
        HttpRequest.newBuilder(base.resolve(relative))
            .timeout(REQUEST_TIMEOUT)
            .header("Accept", "application/json");
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return request;
  }

  private JsonNode send(HttpRequest.Builder request) throws InterruptedException {
    HttpRequest built = request.build();
    HttpResponse<byte[]> response;
    try {
      response = http.send(built, HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new ApiError(0, "unreachable", "no answer from " + base + ": " + e);
    }
    JsonNode body = parse(response.body());
    int status = response.statusCode();
    if (status / 100 != 2) {
      String fallback = "HTTP " + status + " from " + built.uri();
      throw new ApiError(
          status,
          body == null ? "http_" + status : body.path("code").asText("http_" + status),
          body == null ? fallback : body.path("message").asText(fallback));
    }
    if (body == null) {
      throw new ApiError(status, "not_json", "the answer from " + built.uri() + " is not JSON");
    }
    return body;
  }

  /** The JSON of {@code bytes}; an empty object for none; null when they are not JSON. */
  private static JsonNode parse(byte[] bytes) {
    if (bytes.length == 0) {
      return AxJson.MAPPER.createObjectNode();
    }
    try {
      return AxJson.MAPPER.readTree(bytes);
    } catch (IOException e) {
      return null;
    }
  }
}
