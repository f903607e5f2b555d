package dev.ax.common.stage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The probe server on a real socket: slow clients do not hold up the liveness probe. */
class MetricsEndpointTest {

  private final Readiness readiness = new Readiness(Duration.ofSeconds(2), System::nanoTime);
  private final List<Socket> slowClients = new ArrayList<>();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
  private MetricsEndpoint endpoint;

  @AfterEach
  void close() throws IOException {
    for (Socket socket : slowClients) {
      socket.close();
    }
    if (endpoint != null) {
      endpoint.close();
    }
    readiness.close();
  }

  @Test
  void aClientThatSendsHalfARequestDoesNotHoldUpTheLivenessProbe() throws Exception {
    endpoint =
        MetricsEndpoint.start(
            "127.0.0.1:0", new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), readiness);
    openSlowClient();

    // Several probes in a row: whichever the server took first, the half request holds a thread.
    for (int probe = 0; probe < 5; probe++) {
      await()
          .atMost(Duration.ofSeconds(2))
          .ignoreExceptionsInstanceOf(IOException.class)
          .untilAsserted(() -> assertThat(live()).as("/health/live").isEqualTo(200));
    }
  }

  @Test
  void aFloodOfSlowClientsIsDroppedAfterTheReadTimeoutAndTheProbeAnswers() throws Exception {
    endpoint =
        MetricsEndpoint.start(
            "127.0.0.1:0",
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
            readiness,
            Duration.ofMillis(300),
            Duration.ofSeconds(30));
    // More than the threads and their queue hold: a flood.
    for (int i = 0; i < MetricsEndpoint.THREADS + ExchangeThreads.QUEUE_CAPACITY + 20; i++) {
      openSlowClient();
    }

    await()
        .atMost(Duration.ofSeconds(5))
        .ignoreExceptionsInstanceOf(IOException.class)
        .untilAsserted(() -> assertThat(live()).as("/health/live").isEqualTo(200));
    for (Socket slow : slowClients) {
      assertThat(closedByServer(slow)).as("a client that sent half a request is dropped").isTrue();
    }
  }

  /** Connects and sends the start of a request, never its end. */
  private void openSlowClient() throws IOException {
    Socket socket = new Socket();
    slowClients.add(socket);
    socket.connect(new InetSocketAddress("127.0.0.1", endpoint.port()), 5_000);
    socket
        .getOutputStream()
        .write("GET /metrics HTTP/1.1\r\nHost: localhost\r\n".getBytes(StandardCharsets.US_ASCII));
    socket.getOutputStream().flush();
  }

  /** Whether the server closes {@code socket} within 5 s (end of stream or a reset). */
  private static boolean closedByServer(Socket socket) throws IOException {
    socket.setSoTimeout(5_000);
    InputStream in = socket.getInputStream();
    try {
      return in.read() == -1;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (SocketException e) {
      return true; // reset
    }
  }

  private int live() throws Exception {
    return http.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + endpoint.port() + "/health/live"))
                .timeout(Duration.ofMillis(500))
                .build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }
}
