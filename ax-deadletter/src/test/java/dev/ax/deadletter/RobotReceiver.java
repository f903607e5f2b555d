package dev.ax.deadletter;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.ax.common.contract.AxJson;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A stand-in for a chat robot in tests: an HTTP server on loopback that answers 200 to every POST
 * and keeps each body, by path ({@code /slack}, {@code /wecom}, ...). Thread-safe.
 */
final class RobotReceiver implements AutoCloseable {

  /** One POST received. */
  record Received(String path, String contentType, JsonNode body) {}

  private final HttpServer server;
  private final List<Received> received = new CopyOnWriteArrayList<>();

  RobotReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        exchange -> {
          try (exchange) {
            received.add(
                new Received(
                    exchange.getRequestURI().getPath(),
                    exchange.getRequestHeaders().getFirst("Content-Type"),
                    AxJson.MAPPER.readTree(exchange.getRequestBody().readAllBytes())));
            exchange.sendResponseHeaders(200, -1);
          }
        });
    server.start();
  }

  /** The URL of {@code path} on this receiver. */
  URI url(String path) {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
  }

  /** The bodies received on {@code path}, in order. */
  List<JsonNode> bodies(String path) {
    return received.stream().filter(r -> r.path().equals(path)).map(Received::body).toList();
  }

  List<Received> all() {
    return List.copyOf(received);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
