package dev.ax.common.contract;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.common.model.PoolNames;

/**
 * Reads the pool target of an HTTP executor: {@code "pool": "<name>"} and an optional {@code
 * "path": "/run"} instead of {@code "url"} (exactly one of the two). The path is appended to the
 * base URL of the endpoint the pool picks, so it may name neither a scheme nor a host. Stateless.
 */
final class PoolTargetJson {

  /** A pool and the path under its endpoints' base URLs (empty: none). */
  record Target(String pool, String path) {}

  private PoolTargetJson() {}

  /**
   * @throws InvalidFieldException with the reason, when the fields are wrong or a url is given too
   */
  static Target read(JsonNode node) {
    if (node.hasNonNull("url")) {
      throw new InvalidFieldException("executor takes exactly one of url and pool, not both");
    }
    JsonNode pool = node.get("pool");
    if (pool == null || pool.isNull()) {
      throw new InvalidFieldException("executor.path needs executor.pool (a url holds its path)");
    }
    if (!pool.isTextual() || !PoolNames.validName(pool.asText())) {
      throw new InvalidFieldException(
          "executor.pool must match "
              + PoolNames.NAME.pattern()
              + ": "
              + Echo.cut(pool.toString()));
    }
    JsonNode path = node.get("path");
    if (path == null || path.isNull()) {
      return new Target(pool.asText(), "");
    }
    if (!path.isTextual() || !PoolNames.validPath(path.asText())) {
      throw new InvalidFieldException(
          "executor.path must start with one / and hold only URI path and query characters, at"
              + " most "
              + PoolNames.MAX_PATH_LENGTH
              + " (no scheme, host or fragment): "
              + Echo.cut(path.toString()));
    }
    return new Target(pool.asText(), path.asText());
  }
}
