package dev.ax.embedded;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka broker and MariaDB server that every test JVM of one Maven build shares, instead of
 * each JVM starting its own pair (5 to 17 s each, two at once per module on two cores).
 *
 * <p>The first JVM that asks ({@link #join}) starts them as a process of their own ({@link #main}),
 * which writes their addresses to {@value #COORDINATES} in the build's directory; later JVMs read
 * that file. The process lives as long as the Maven process it was started for (the owner) and
 * stops its servers and deletes their data when the owner ends, however it ends. A file lock on
 * {@value #START_LOCK} makes check-and-start atomic across the JVMs of the build.
 *
 * <p>Used only when the system property {@value #DIR_PROPERTY} names the directory (the root pom
 * sets it for every test JVM) and this JVM runs under a Maven process; otherwise {@link #join}
 * returns empty and the JVM starts its own servers as before.
 *
 * <p>Thread-safety: {@link #join} is called under {@link SharedInfrastructure}'s lock; the file
 * lock orders JVMs.
 */
final class BuildServers {

  /** System property: the directory of the build's shared servers. */
  static final String DIR_PROPERTY = "ax.test.servers.dir";

  static final String COORDINATES = "servers.properties";
  static final String START_LOCK = "start.lock";
  static final String LOG = "servers.log";

  /** Maven's launcher class, on the command line of the Maven JVM. */
  private static final String MAVEN_LAUNCHER = "org.codehaus.plexus.classworlds.launcher.Launcher";

  /** Surefire forks run under a shell under Maven: a few ancestors are enough. */
  private static final int MAX_ANCESTORS = 4;

  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
  private static final Duration START_POLL = Duration.ofMillis(100);

  private static final Logger log = LoggerFactory.getLogger(BuildServers.class);

  /** Where the build's servers listen, and the process that runs them. */
  record Coordinates(String bootstrapServers, DatabaseServer database, long pid, long ownerPid) {

    boolean alive() {
      return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }
  }

  private BuildServers() {}

  /**
   * The build's servers, started now when none serve this build yet; empty when {@value
   * #DIR_PROPERTY} is not set or no Maven process is among this JVM's ancestors.
   *
   * @throws IllegalStateException if the servers' process could not be started
   */
  static Optional<Coordinates> join() {
    String dir = System.getProperty(DIR_PROPERTY, "");
    if (dir.isBlank()) {
      return Optional.empty();
    }
    Optional<ProcessHandle> maven = mavenAncestor(ProcessHandle.current());
    if (maven.isEmpty()) {
      log.info("{} is set but no Maven process runs this JVM: it starts its own servers", dir);
      return Optional.empty();
    }
    return Optional.of(join(Path.of(dir), maven.get()));
  }

  /**
   * The servers owned by {@code owner} whose addresses are in {@code dir}, started now when there
   * are none.
   */
  static Coordinates join(Path dir, ProcessHandle owner) {
    try {
      Files.createDirectories(dir);
      try (FileChannel channel =
              FileChannel.open(
                  dir.resolve(START_LOCK), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
          FileLock startLock = channel.lock()) {
        Optional<Coordinates> running =
            read(dir).filter(c -> c.ownerPid() == owner.pid() && c.alive());
        if (running.isPresent()) {
          return running.get();
        }
        return start(dir, owner);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot use the build's servers in " + dir, e);
    }
  }

  private static Coordinates start(Path dir, ProcessHandle owner) throws IOException {
    Files.deleteIfExists(dir.resolve(COORDINATES));
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> command =
        List.of(
            java,
            "-Xmx768m",
            "-cp",
            System.getProperty("java.class.path"),
            BuildServers.class.getName(),
            dir.toAbsolutePath().toString(),
            Long.toString(owner.pid()));
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(LOG).toFile()))
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .start();
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      Optional<Coordinates> written = read(dir).filter(c -> c.pid() == process.pid());
      if (written.isPresent()) {
        log.info(
            "Build servers started (pid {}): Kafka {}, database {}; log {}",
            process.pid(),
            written.get().bootstrapServers(),
            written.get().database().serverJdbcUrl(),
            dir.resolve(LOG));
        return written.get();
      }
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "the build's servers exited with code "
                + process.exitValue()
                + "; see "
                + dir.resolve(LOG));
      }
      pause();
    }
    process.destroyForcibly();
    throw new IllegalStateException(
        "the build's servers did not start within " + START_TIMEOUT + "; see " + dir.resolve(LOG));
  }

  /** The first Maven JVM among {@code process}'s ancestors. */
  static Optional<ProcessHandle> mavenAncestor(ProcessHandle process) {
    Optional<ProcessHandle> ancestor = process.parent();
    for (int i = 0; i < MAX_ANCESTORS && ancestor.isPresent(); i++) {
      if (ancestor.get().info().commandLine().orElse("").contains(MAVEN_LAUNCHER)) {
        return ancestor;
      }
      ancestor = ancestor.get().parent();
    }
    return Optional.empty();
  }

  static Optional<Coordinates> read(Path dir) throws IOException {
    Path file = dir.resolve(COORDINATES);
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    Properties properties = new Properties();
    try (var in = Files.newInputStream(file)) {
      properties.load(in);
    }
    return Optional.of(
        new Coordinates(
            properties.getProperty("kafka"),
            new DatabaseServer(
                properties.getProperty("jdbc"),
                properties.getProperty("user"),
                properties.getProperty("password", "")),
            Long.parseLong(properties.getProperty("pid")),
            Long.parseLong(properties.getProperty("owner"))));
  }

  /**
   * Runs the build's servers: {@code args} are the directory and the owner's pid. Writes the
   * coordinates once both servers answer, then waits for the owner to end (or for SIGTERM), stops
   * both, and deletes their data and the coordinates.
   */
  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    Optional<ProcessHandle> owner = ProcessHandle.of(Long.parseLong(args[1]));
    if (owner.isEmpty() || !owner.get().isAlive()) {
      log.warn("owner {} has ended already: not starting", args[1]);
      return;
    }
    Path runDir = Files.createTempDirectory("ax-build-servers-");
    ParallelStart.Both<EmbeddedKafka, EmbeddedDatabase> servers =
        ParallelStart.start(
            "kafka",
            () -> EmbeddedKafka.start(runDir.resolve("kafka")),
            () -> EmbeddedDatabase.start(runDir.resolve("mariadb")));
    long pid = ProcessHandle.current().pid();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(() -> stop(servers, runDir, dir, pid), "ax-build-servers-shutdown"));
    write(dir, servers, pid, owner.get().pid());
    log.info("Serving the build of Maven process {} until it ends", owner.get().pid());
    owner.get().onExit().join();
    log.info("Maven process {} ended: stopping", owner.get().pid());
    // Before exit: the database's own shutdown hook stops it alongside this class's.
    logConnectionsUsed(servers.second());
    System.exit(0); // runs the shutdown hook
  }

  private static void write(
      Path dir, ParallelStart.Both<EmbeddedKafka, EmbeddedDatabase> servers, long pid, long owner)
      throws IOException {
    Properties properties = new Properties();
    properties.setProperty("kafka", servers.first().bootstrapServers());
    properties.setProperty("jdbc", servers.second().serverJdbcUrl());
    properties.setProperty("user", servers.second().user());
    properties.setProperty("password", servers.second().password());
    properties.setProperty("pid", Long.toString(pid));
    properties.setProperty("owner", Long.toString(owner));
    Path partial = dir.resolve(COORDINATES + ".partial");
    try (var out = Files.newOutputStream(partial)) {
      properties.store(out, "AX build servers; deleted when they stop");
    }
    Files.move(partial, dir.resolve(COORDINATES), StandardCopyOption.ATOMIC_MOVE);
  }

  private static void stop(
      ParallelStart.Both<EmbeddedKafka, EmbeddedDatabase> servers,
      Path runDir,
      Path dir,
      long pid) {
    try {
      if (read(dir).map(c -> c.pid() == pid).orElse(false)) {
        Files.deleteIfExists(dir.resolve(COORDINATES));
      }
    } catch (IOException | RuntimeException e) {
      log.warn("could not remove {}: {}", dir.resolve(COORDINATES), e.toString());
    }
    try {
      servers.first().close();
    } finally {
      try {
        servers.second().close();
      } finally {
        Directories.deleteRecursively(runDir);
      }
    }
  }

  /** How close the build came to the database's connection limit, for whoever sizes it. */
  private static void logConnectionsUsed(EmbeddedDatabase database) {
    try (Connection connection =
            DriverManager.getConnection(
                database.serverJdbcUrl(), database.user(), database.password());
        Statement statement = connection.createStatement();
        ResultSet used =
            statement.executeQuery(
                "SELECT @@max_connections, VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS"
                    + " WHERE VARIABLE_NAME = 'MAX_USED_CONNECTIONS'")) {
      if (used.next()) {
        log.info("Database connections: at most {} of {} in use", used.getLong(2), used.getLong(1));
      }
    } catch (SQLException e) {
      log.info("Could not read the database's connection high-water mark: {}", e.toString());
    }
  }

  private static void pause() {
    try {
      Thread.sleep(START_POLL.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the build's servers", e);
    }
  }
}
