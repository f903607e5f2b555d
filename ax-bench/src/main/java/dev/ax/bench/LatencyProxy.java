package dev.ax.bench;

import dev.ax.common.thread.DaemonThreads;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP proxy on the loopback interface that holds every byte the server sends for a fixed delay
 * before passing it on, so each request and response round trip through it takes that much longer:
 * what {@code tc qdisc ... netem delay} on the server's side of a link does, for a machine whose
 * kernel has no netem. {@code ax bench --db-delay} puts it between the stages and the database.
 *
 * <p>Per connection: one thread copies client → server at once; one reads server → client and
 * queues each chunk with the time it may leave; one sends each chunk at that time. Order within a
 * direction is kept. The queue is bounded, so a client that does not read slows the server's side,
 * as TCP would. When either side closes, both are closed. At most {@value #MAX_CONNECTIONS}
 * connections are open at once; a further one is refused (closed at once).
 *
 * <p>Thread-safe: {@link #close()} may be called from any thread.
 */
public final class LatencyProxy implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LatencyProxy.class);
  private static final int CHUNK_BYTES = 64 * 1024;
  private static final int QUEUED_CHUNKS = 64;
  static final int MAX_CONNECTIONS = 500;

  /** A database that does not answer must not hold up the accept thread for the OS's minutes. */
  private static final int CONNECT_TIMEOUT_MS = 10_000;

  /** Bytes the server sent, and the {@link System#nanoTime()} at which they may go on. */
  private record Chunk(byte[] bytes, long sendAtNanos) {
    static final Chunk END = new Chunk(new byte[0], 0);
  }

  private final ServerSocket listener;
  private final InetSocketAddress target;
  private final long delayNanos;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final ExecutorService pumps =
      Executors.newCachedThreadPool(DaemonThreads.numbered("ax-bench-proxy"));
  private final Thread acceptor;
  private volatile boolean closed;

  private LatencyProxy(ServerSocket listener, InetSocketAddress target, Duration delay) {
    this.listener = listener;
    this.target = target;
    this.delayNanos = delay.toNanos();
    this.acceptor = DaemonThreads.thread("ax-bench-proxy-accept", this::acceptLoop);
  }

  /**
   * Listens on a free loopback port and forwards to {@code target}, holding what it answers for
   * {@code delay}.
   *
   * @throws IllegalArgumentException if {@code delay} is negative
   */
  public static LatencyProxy start(InetSocketAddress target, Duration delay) throws IOException {
    if (delay.isNegative()) {
      throw new IllegalArgumentException("delay must not be negative: " + delay);
    }
    ServerSocket listener = new ServerSocket();
    listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    LatencyProxy proxy = new LatencyProxy(listener, target, delay);
    proxy.acceptor.start();
    return proxy;
  }

  /** The loopback port clients connect to. */
  public int port() {
    return listener.getLocalPort();
  }

  /** Connections open now. */
  int openConnections() {
    return open.size() / 2;
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        if (!closed) {
          log.warn("The latency proxy stopped accepting: {}", e.toString());
        }
        return;
      }
      if (open.size() / 2 >= MAX_CONNECTIONS) {
        log.warn("The latency proxy refused a connection: {} are open", MAX_CONNECTIONS);
        closeQuietly(client);
        continue;
      }
      Socket server = new Socket();
      try {
        server.connect(target, CONNECT_TIMEOUT_MS);
        client.setTcpNoDelay(true);
        server.setTcpNoDelay(true);
      } catch (IOException e) {
        log.warn("The latency proxy could not reach {}: {}", target, e.toString());
        closeQuietly(client);
        closeQuietly(server);
        continue;
      }
      open.add(client);
      open.add(server);
      BlockingQueue<Chunk> held = new ArrayBlockingQueue<>(QUEUED_CHUNKS);
      try {
        pumps.execute(() -> copy(client, server));
        pumps.execute(() -> hold(server, client, held));
        pumps.execute(() -> release(held, server, client));
      } catch (RejectedExecutionException e) {
        closePair(client, server); // closed while this connection was being set up
        return;
      }
    }
  }

  /** Client → server, at once. */
  private void copy(Socket from, Socket to) {
    byte[] buffer = new byte[CHUNK_BYTES];
    try (InputStream in = from.getInputStream()) {
      OutputStream out = to.getOutputStream();
      int n;
      while ((n = in.read(buffer)) >= 0) {
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // the other side closed, or the proxy did: the connection ends
    } finally {
      closePair(from, to);
    }
  }

  /** Server → queue, each chunk stamped with the time it may leave. */
  private void hold(Socket from, Socket to, BlockingQueue<Chunk> held) {
    byte[] buffer = new byte[CHUNK_BYTES];
    try (InputStream in = from.getInputStream()) {
      int n;
      while ((n = in.read(buffer)) >= 0) {
        held.put(new Chunk(Arrays.copyOf(buffer, n), System.nanoTime() + delayNanos));
      }
    } catch (IOException e) {
      // the other side closed, or the proxy did
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      // The release thread sends what is held, then ends the connection.
      try {
        held.put(Chunk.END);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        closePair(from, to);
      }
    }
  }

  /** Queue → client, each chunk at its time. */
  private void release(BlockingQueue<Chunk> held, Socket from, Socket to) {
    try {
      OutputStream out = to.getOutputStream();
      while (true) {
        Chunk chunk = held.take();
        if (chunk == Chunk.END) {
          return;
        }
        long waitNanos;
        while ((waitNanos = chunk.sendAtNanos() - System.nanoTime()) > 0) {
          LockSupport.parkNanos(waitNanos);
          if (Thread.interrupted()) {
            return;
          }
        }
        out.write(chunk.bytes());
        out.flush();
      }
    } catch (IOException e) {
      // the client closed, or the proxy did
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      closePair(from, to);
    }
  }

  private void closePair(Socket a, Socket b) {
    closeQuietly(a);
    closeQuietly(b);
    open.remove(a);
    open.remove(b);
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // closing: nothing more to do
    }
  }

  /** Stops accepting, closes every connection and waits briefly for the pumps to end. */
  @Override
  public void close() {
    closed = true;
    try {
      listener.close();
    } catch (IOException e) {
      // closing: nothing more to do
    }
    open.forEach(LatencyProxy::closeQuietly);
    open.clear();
    pumps.shutdownNow();
    try {
      pumps.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
