package dev.ax.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds currently free TCP ports on the loopback interface.
 *
 * <p>A port found free may be taken by someone else before the server binds it; callers that can
 * retry should do so on a bind failure. Thread-safe (stateless).
 */
final class FreePorts {

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
