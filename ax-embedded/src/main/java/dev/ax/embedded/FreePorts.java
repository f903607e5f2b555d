package dev.ax.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Finds currently free TCP ports on the loopback interface, never the same one twice in this JVM:
 * two servers started in parallel (the shared test infrastructure starts Kafka and MariaDB at once)
 * could otherwise both be handed a port the operating system gave out twice in a row, and one of
 * them fail to bind.
 *
 * <p>A port found free may still be taken by another process before the server binds it; callers
 * that can retry should do so on a bind failure. Thread-safe: the ports handed out are kept in a
 * concurrent set (a few per server started, so it stays small).
 */
final class FreePorts {

  /** Every port this class has returned in this JVM. */
  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

  /** How often to ask the operating system again for ports not handed out before. */
  private static final int MAX_TRIES = 100;

  private FreePorts() {}

  /**
   * Returns {@code count} distinct ports that were free on 127.0.0.1 a moment ago.
   *
   * @throws UncheckedIOException if the operating system refuses to hand out an ephemeral port
   */
  static List<Integer> loopback(int count) {
    if (count < 1) {
      throw new IllegalArgumentException("count must be >= 1, was " + count);
    }
    for (int attempt = 0; attempt < MAX_TRIES; attempt++) {
      List<Integer> ports = pick(count);
      boolean allNew = true;
      for (int port : ports) {
        allNew &= HANDED_OUT.add(port);
      }
      if (allNew) {
        return ports;
      }
    }
    throw new IllegalStateException(
        "no " + count + " loopback port(s) not handed out before after " + MAX_TRIES + " tries");
  }

  private static List<Integer> pick(int count) {
    List<ServerSocket> sockets = new ArrayList<>(count);
    try {
      // Hold every socket open until all are allocated so that the ports are distinct.
      for (int i = 0; i < count; i++) {
        ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        socket.setReuseAddress(true);
        sockets.add(socket);
      }
      return sockets.stream().map(ServerSocket::getLocalPort).toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot allocate a free loopback port", e);
    } finally {
      for (ServerSocket socket : sockets) {
        try {
          socket.close();
        } catch (IOException ignored) {
          // closing a listening socket that never accepted anything: nothing to recover
        }
      }
    }
  }

  /** Returns one port that was free on 127.0.0.1 a moment ago. */
  static int loopback() {
    return loopback(1).get(0);
  }
}
