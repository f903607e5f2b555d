package dev.ax.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link LatencyProxy} in front of a real echo server on the loopback interface. */
class LatencyProxyTest {

  private ServerSocket echo;
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @BeforeEach
  void startEchoServer() throws IOException {
    echo = new ServerSocket();
    echo.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    threads.execute(
        () -> {
          while (!echo.isClosed()) {
            try {
              Socket connection = echo.accept();
              threads.execute(() -> echoUntilEnd(connection));
            } catch (IOException e) {
              return;
            }
          }
        });
  }

  @AfterEach
  void stop() throws IOException {
    echo.close();
    threads.shutdownNow();
  }

  private static void echoUntilEnd(Socket connection) {
    try (connection;
        InputStream in = connection.getInputStream();
        OutputStream out = connection.getOutputStream()) {
      byte[] buffer = new byte[8192];
      int n;
      while ((n = in.read(buffer)) >= 0) {
        out.write(buffer, 0, n);
      }
    } catch (IOException e) {
      // the client went away
    }
  }

  private InetSocketAddress echoAddress() {
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), echo.getLocalPort());
  }

  @Test
  void passesEveryByteInOrderBothWays() throws Exception {
    byte[] sent = new byte[3 * 1024 * 1024 + 17];
    new Random(42).nextBytes(sent);
    try (LatencyProxy proxy = LatencyProxy.start(echoAddress(), Duration.ofMillis(2));
        Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
      Future<?> writing =
          threads.submit(
              () -> {
                client.getOutputStream().write(sent);
                client.getOutputStream().flush();
                return null;
              });
      byte[] received = new byte[sent.length];
      new DataInputStream(client.getInputStream()).readFully(received);
      writing.get();
      assertThat(received).isEqualTo(sent);
    }
  }

  @Test
  void noAnswerArrivesBeforeTheDelay() throws Exception {
    Duration delay = Duration.ofMillis(40);
    try (LatencyProxy proxy = LatencyProxy.start(echoAddress(), delay);
        Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
      for (int i = 0; i < 3; i++) {
        long start = System.nanoTime();
        client.getOutputStream().write(i);
        assertThat(client.getInputStream().read()).isEqualTo(i);
        // A lower bound the proxy guarantees, not a performance threshold.
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(delay.toNanos());
      }
    }
  }

  @Test
  void theClientSeesTheEndWhenTheServerCloses() throws Exception {
    try (LatencyProxy proxy = LatencyProxy.start(echoAddress(), Duration.ZERO);
        Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
      client.getOutputStream().write(7);
      assertThat(client.getInputStream().read()).isEqualTo(7);
      echo.close(); // stops accepting; the open connection stays until the client ends it
      client.shutdownOutput();
      assertThat(client.getInputStream().read()).isEqualTo(-1);
    }
  }

  @Test
  void closingTheProxyEndsItsConnections() throws Exception {
    LatencyProxy proxy = LatencyProxy.start(echoAddress(), Duration.ZERO);
    try (Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
      client.getOutputStream().write(1);
      assertThat(client.getInputStream().read()).isEqualTo(1);
      assertThat(proxy.openConnections()).isEqualTo(1);
      proxy.close();
      assertThat(proxy.openConnections()).isZero();
      assertThat(client.getInputStream().read()).isEqualTo(-1);
    }
  }

  @Test
  void aNegativeDelayIsRefused() {
    assertThatThrownBy(() -> LatencyProxy.start(echoAddress(), Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("negative");
  }
}
