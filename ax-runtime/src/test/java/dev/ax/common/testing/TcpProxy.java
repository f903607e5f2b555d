package dev.ax.common.testing;

import dev.ax.embedded.DatabaseCoordinates;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP relay to a real server, which a test can {@link #cut()} and {@link #restore()}:
 * while cut, open connections are reset and new ones refused, as when a database host goes away.
 * Thread-safe; one thread accepts, two threads pump each connection.
 */
public final class TcpProxy implements AutoCloseable {

  private final String targetHost;
  private final int targetPort;
  private final int port;
  private final List<Socket> open = new CopyOnWriteArrayList<>();
  private volatile ServerSocket server;

  public TcpProxy(String targetHost, int targetPort) throws IOException {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    this.server = listen(0);
    this.port = server.getLocalPort();
    startAccepting(server);
  }

  /** A relay to the database server of {@code db}, as its JDBC URL names it. */
  public static TcpProxy inFrontOf(DatabaseCoordinates db) throws IOException {
    URI target = URI.create(db.jdbcUrl().substring("jdbc:".length()));
    return new TcpProxy(target.getHost(), target.getPort());
  }

  /** A relay to the broker {@code bootstrapServers} names ({@code host:port}, one broker). */
  public static TcpProxy inFrontOfBroker(String bootstrapServers) throws IOException {
    int colon = bootstrapServers.lastIndexOf(':');
    return new TcpProxy(
        bootstrapServers.substring(0, colon),
        Integer.parseInt(bootstrapServers.substring(colon + 1)));
  }

  /** The bootstrap address of the broker through this relay. */
  public String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  /** The JDBC URL of {@code db} through this relay: its port in place of the server's. */
  public String jdbcUrl(DatabaseCoordinates db) {
    return db.jdbcUrl().replace(":" + targetPort + "/", ":" + port + "/");
  }

  /** The loopback port clients connect to; the same after a {@link #restore()}. */
  public int port() {
    return port;
  }

  /** Resets every open connection and refuses new ones until {@link #restore()}. */
  public synchronized void cut() {
    closeQuietly(server);
    for (Socket socket : open) {
      closeQuietly(socket);
    }
    open.clear();
  }

  /** Accepts connections again, on the same port. */
  public synchronized void restore() throws IOException {
    if (!server.isClosed()) {
      return;
    }
    server = listen(port);
    startAccepting(server);
  }

  private static ServerSocket listen(int port) throws IOException {
    ServerSocket socket = new ServerSocket();
    socket.setReuseAddress(true);
    socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    return socket;
  }

  private void startAccepting(ServerSocket listening) {
    Thread accept =
        new Thread(
            () -> {
              while (!listening.isClosed()) {
                try {
                  Socket client = listening.accept();
                  Socket upstream = new Socket(targetHost, targetPort);
                  open.add(client);
                  open.add(upstream);
                  pump(client, upstream);
                  pump(upstream, client);
                } catch (IOException e) {
                  // closed by cut() or close(), or the target refused: the client sees a reset
                }
              }
            },
            "tcp-proxy-accept-" + port);
    accept.setDaemon(true);
    accept.start();
  }

  private void pump(Socket from, Socket to) {
    Thread pump =
        new Thread(
            () -> {
              byte[] buffer = new byte[16 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                  out.write(buffer, 0, read);
                  out.flush();
                }
              } catch (IOException e) {
                // one side closed: close both below
              } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
              }
            },
            "tcp-proxy-pump-" + port);
    pump.setDaemon(true);
    pump.start();
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      // already closed
    }
  }

  @Override
  public void close() {
    cut();
  }
}
