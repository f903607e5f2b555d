package dev.ax.api.http;

/**
 * An expected refusal of a request, answered as JSON {@code {"code": ..., "message": ...}} with its
 * HTTP status. The code is stable (clients branch on it); the message is for people and never holds
 * a secret. Immutable.
 */
public final class ApiException extends RuntimeException {

  private final int status;
  private final String code;

  public ApiException(int status, String code, String message) {
    super(message, null, false, false);
    this.status = status;
    this.code = code;
  }

  /** 400 {@code bad_request}. */
  public static ApiException badRequest(String message) {
    return new ApiException(400, "bad_request", message);
  }

  /** 404 {@code not_found}: the route exists, the thing it names does not. */
  public static ApiException notFound(String message) {
    return new ApiException(404, "not_found", message);
  }

  public int status() {
    return status;
  }

  public String code() {
    return code;
  }
}
