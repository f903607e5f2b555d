package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.kafka.KafkaConnection;
import dev.ax.common.kafka.TopicProvisioner;
import dev.ax.common.kafka.Topics;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.Database;
import dev.ax.deadletter.DeadLetterMain;
import dev.ax.dispatcher.DispatcherMain;
import dev.ax.dispatcher.store.ClaimStore;
import dev.ax.embedded.EmbeddedDatabase;
import dev.ax.embedded.junit.WallClock;
import dev.ax.ingest.IngestMain;
import dev.ax.resolver.ResolverMain;
import dev.ax.retry.RetryMain;
import dev.ax.ticker.TickerMain;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The whole deployment as separate processes, under load, through the faults a production cluster
 * sees: a Kafka broker and a MariaDB server that can each be killed and brought back on the same
 * port and data, and every stage in a JVM of its own (ingest, two tickers, two dispatchers, retry,
 * dead letter, resolver). 3,000 one-shot tasks fall due over two minutes, a third of them HTTP
 * calls to a recorder in this JVM. While they run, at fixed times: a dispatcher is killed with
 * SIGKILL and later replaced, the leading ticker is killed, the broker is killed and restarted
 * after 6 s, and the database is stopped and restarted after 6 s.
 *
 * <p>The scenario runs once ({@link #runTheDeploymentThroughItsFaults}); each {@code @Test} then
 * checks one property of what it recorded and says which defect a failure points at. A measurement
 * summary (lateness per fault window, hand-over, recovery, start-to-ready per stage) goes to stdout
 * between the lines {@code DeploymentFaultIT summary} and {@code DeploymentFaultIT summary end},
 * and to {@code target/deployment-fault/summary.txt}. Processes log to {@code
 * target/deployment-fault/logs/}.
 *
 * <p>Times: the broker, the database server, every stage and this JVM run on one host and read one
 * wall clock; the stages' database clock is that clock read through {@code NOW(3)}. Lateness is
 * first start minus due time: the arrival of the first call at the recorder for an HTTP task, the
 * first RUNNING row in {@code ax_instance_log} for the others.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@WallClock
class DeploymentFaultIT {

  // ---- the workload ----

  private static final int TASKS = 3_000;

  /**
   * Of the {@link #TASKS}, this many are due in the {@link #BURST_SPAN} just before the dispatcher
   * is killed, so that the kill lands while it records outcomes and sends their events; the others
   * are spread evenly over [FIRST_DUE, LAST_DUE].
   */
  private static final int BURST_TASKS = 300;

  /**
   * Every this many of the spread tasks is produced only {@link #SHORT_NOTICE} before it is due,
   * during the run, not at T0: it reaches the leader only by its announcement, since the window
   * loader runs every {@link #LOAD_INTERVAL}. With both tickers in one consumer group the standby
   * dropped the announcements of its partitions, and these waited for the next load.
   */
  private static final int SHORT_NOTICE_EVERY = 10;

  private static final Duration SHORT_NOTICE = Duration.ofMillis(1500);

  /**
   * The tickers' window-load interval here: longer than a short notice, so a lost announcement
   * shows.
   */
  private static final String LOAD_INTERVAL = "5s";

  private static final Duration BURST_SPAN = Duration.ofMillis(300);

  /** Every this many tasks one is an HTTP task; the others run the in-process {@code noop}. */
  private static final int HTTP_EVERY = 3;

  /** Every this many HTTP tasks one gets 503 on its first attempt and goes through retry. */
  private static final int FAIL_FIRST_EVERY = 20;

  /** Every dispatcher signs its calls with this; no process may ever write it out. */
  private static final String SIGNING_SECRET =
      "deploy-signing-" + java.util.UUID.randomUUID() + java.util.UUID.randomUUID();

  /** Every HTTP task carries it in its Authorization header; no process may ever write it out. */
  private static final String HEADER_SECRET = "deploy-header-" + java.util.UUID.randomUUID();

  /** Due times are spread evenly over [FIRST_DUE, LAST_DUE] after the workload starts (T0). */
  private static final Duration FIRST_DUE = Duration.ofSeconds(10);

  private static final Duration LAST_DUE = Duration.ofSeconds(135);

  private static final int PARTITIONS = 6;
  private static final String TOPIC_PREFIX = "fault-";

  /** The broker probe's own topic: no stage reads it. */
  private static final String PROBE_TOPIC = "fault-probe";

  private static final int MAX_SLOW_LINES = 80;

  private static final String DATABASE_NAME = "ax_fault";

  // ---- the fault schedule, from T0 ----

  private static final Duration DISPATCHER_KILL_AT = Duration.ofSeconds(20);
  private static final Duration DISPATCHER_REPLACE_AT = Duration.ofSeconds(32);
  private static final Duration TICKER_KILL_AT = Duration.ofSeconds(50);
  private static final Duration BROKER_KILL_AT = Duration.ofSeconds(66);
  private static final Duration BROKER_DOWN = Duration.ofSeconds(6);

  /** Or {@link #QUIET_AFTER_RECOVERY} after the broker answered again, if that is later. */
  private static final Duration DATABASE_STOP_AT = Duration.ofSeconds(100);

  private static final Duration DATABASE_DOWN = Duration.ofSeconds(6);

  // ---- the targets (the issue's numbers) and what this test asserts ----
  //
  // Hand-over and recovery are asserted at their targets, which the defects they guard against
  // miss by far. Start time and steady lateness are reported against their targets
  // (docs/BENCHMARKS.md records them, and the measurements behind these bounds) and asserted at
  // looser bounds that still catch the defects (Flyway on every start, a lost announcement or a
  // held event cost seconds), so that a busy host does not fail a correct build on a few hundred
  // milliseconds of scheduling noise.

  /** Process start to the stage's "running" log line: the target, reported. */
  private static final Duration START_TO_READY_TARGET = Duration.ofSeconds(3);

  /**
   * What the test asserts for the start of every stage: above the target, because the last stages
   * start while eight JVMs poll on two cores. Flyway on every start is caught by the replacements'
   * logs instead (they run with migrations on and must skip them).
   */
  private static final Duration START_TO_READY_BOUND = Duration.ofSeconds(8);

  /** Each initial stage starts once the machine is less busy than this (or after the wait). */
  private static final int QUIET_BUSY_PERCENT = 50;

  private static final Duration QUIET_AT_MOST = Duration.ofSeconds(10);

  private static final long LATENESS_P99_TARGET_MS = 100;
  private static final long LATENESS_MAX_TARGET_MS = 500;

  /**
   * What the test asserts for lateness outside the fault windows: looser than the targets, which
   * the summary reports, so that a stretch of saturated CPU on a busy host (the rest of the suite,
   * the broker's restart) does not fail a correct build; a lost announcement or held event costs
   * seconds, past them. With eleven processes on two cores the CPU is busy 100% through the whole
   * run, and the outside-window p99 of correct builds has been measured between 200 and 870 ms
   * (docs/BENCHMARKS.md); the failure message carries each stretch's figures and probes.
   */
  private static final long LATENESS_P99_BOUND_MS = 1_000;

  private static final long LATENESS_MAX_BOUND_MS = 2_000;

  /** Leading ticker killed to the other ticker holding the lease and firing. */
  private static final Duration HAND_OVER_TARGET = Duration.ofSeconds(5);

  /** Broker or database answering again to instances starting on time again. */
  private static final Duration ON_TIME_AGAIN_TARGET = Duration.ofSeconds(10);

  /**
   * The least time between the broker answering again and the database stop, so that the broker's
   * recovery can be measured before the next fault: the on-time-again target and a margin.
   */
  private static final Duration QUIET_AFTER_RECOVERY = Duration.ofSeconds(13);

  /**
   * Instances due this close before the next fault are not judged for "on time again": the next
   * fault (a database stop takes a second to shut down) may delay even an on-time start.
   */
  private static final Duration NEXT_FAULT_MARGIN = Duration.ofSeconds(2);

  /** A fault's window lasts from the fault to this long after recovery. */
  private static final Duration WINDOW_TAIL = Duration.ofSeconds(10);

  /**
   * Lateness below which an instance counts as on time, for "on time again" after an outage: a
   * second, so that a stretch of host noise long after the recovery does not count as "still late".
   */
  private static final long ON_TIME_MS = 1_000;

  /**
   * The first seconds of load on freshly started JVMs (JIT compilation, the HTTP client's and the
   * spec caches' first use) are reported as a window of their own, not as steady state.
   */
  private static final Duration WARM_UP = Duration.ofSeconds(9);

  /**
   * How much earlier than its due time a call may arrive at the recorder without counting as an
   * early start: the dispatcher's "now" is the database clock read through a local monotonic clock
   * anchored with a half-round-trip estimate, so it can differ from this JVM's wall clock by that
   * estimate's error. The claim itself ({@code due_at_ms <= now}) is checked without tolerance.
   */
  private static final long EARLY_TOLERANCE_MS = 5;

  // ---- how long the harness waits ----

  private static final Duration STAGE_READY_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(45);
  private static final Duration LEASE_SAMPLE_EVERY = Duration.ofMillis(50);

  /** The line {@code StageMain} logs once a stage runs. */
  private static final String STAGE_READY_LINE = "running; stop with SIGTERM or Ctrl-C";

  private static final Set<String> TERMINAL =
      Arrays.stream(InstanceStatus.values())
          .filter(InstanceStatus::isTerminal)
          .map(Enum::name)
          .collect(Collectors.toUnmodifiableSet());

  private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

  private final Path runDir = Path.of("target", "deployment-fault").toAbsolutePath();
  private final Path logDir = runDir.resolve("logs");

  /** Sends the short-notice commands at their time, on a producer of its own. */
  private final java.util.concurrent.ScheduledExecutorService shortNotice =
      java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread thread = new Thread(r, "fault-it-short-notice");
            thread.setDaemon(true);
            return thread;
          });

  private volatile KafkaProducer<String, byte[]> shortNoticeProducer;
  private int shortNoticeTasks;
  private final Topics topics = new Topics(TOPIC_PREFIX);
  private final long testStartMs = nowMs();

  private int brokerPort;
  private int controllerPort;
  private volatile EmbeddedDatabase database;
  private volatile ChildJvm broker;
  private String jdbcUrl;
  private HikariDataSource dataSource;
  private HookRecorder hooks;
  private LeaseSampler leases;
  private HostSampler host;
  private BrokerProbe brokerProbe;
  private SlowStatementSampler slowStatements;

  /** Every process the test started (stages and brokers), by pid, for the late-stretch report. */
  private final Map<Long, String> namesByPid = new java.util.concurrent.ConcurrentHashMap<>();

  private final Map<String, ChildJvm> stages = new LinkedHashMap<>();

  /** The stages the scenario killed on purpose. */
  private final Set<String> killedByTheTest = new HashSet<>();

  /** Stages not killed on purpose that were no longer running once the workload drained. */
  private final List<String> endedOnTheirOwn = new ArrayList<>();

  /** Start-to-ready of the initial start of each stage, which the target applies to. */
  private final Map<String, Long> initialStartToReadyMs = new LinkedHashMap<>();

  /** How busy the machine was (%, over the last second) when each initial stage was started. */
  private final Map<String, Integer> busyAtStartPercent = new LinkedHashMap<>();

  /**
   * Start-to-ready of the broker and the database, and of stages (re)started during the run, under
   * load: reported only.
   */
  private final Map<String, Long> laterStartToReadyMs =
      Collections.synchronizedMap(new LinkedHashMap<>()); // ticker-3 is timed on another thread

  private final List<String> timeline = new CopyOnWriteArrayList<>();
  private final List<FaultWindow> windows = new ArrayList<>();
  private long t0Ms;
  private boolean drained;

  // ---- what the run measured ----

  private final Map<String, InstanceRow> instances = new HashMap<>();
  private final Map<String, String> httpTaskPaths = new HashMap<>();
  private final List<AuditRow> runningRows = new ArrayList<>();

  /**
   * The summary's lines on lateness outside the windows (per stretch, and the late stretches with
   * what the probes saw), for the lateness assertions' messages: CI may keep only those.
   */
  private final List<String> outsideReport = new ArrayList<>();

  /**
   * Claims undone unstarted at a stop ({@code ClaimStore.RELEASED_UNSTARTED}), by instance#attempt.
   */
  private final Map<String, Long> releasedClaims = new HashMap<>();

  /** First SCHEDULED → DISPATCHED (the ticker's firing) per instance, for instances.csv. */
  private final Map<String, Long> firstDispatchedMs = new HashMap<>();

  private final Map<String, List<TaskCompletedEvent>> eventsByInstance = new HashMap<>();
  private List<HookRecorder.Call> calls = List.of();
  private final Map<String, Long> firstStartMs = new HashMap<>();
  private final Map<String, Long> latenessMs = new HashMap<>();
  private String killedTicker = "?";
  private Optional<Long> leaseHandOverMs = Optional.empty();
  private Optional<Long> firingResumedMs = Optional.empty();
  private Optional<Long> brokerOnTimeAgainMs = Optional.empty();
  private Optional<Long> databaseOnTimeAgainMs = Optional.empty();
  private long brokerAnsweringAtMs = Long.MAX_VALUE;
  private long databaseAnsweringAtMs = Long.MAX_VALUE;
  private long databaseStoppedAtMs;
  private long databaseStopAtMs = Long.MAX_VALUE;
  private final List<String> onTimeAgainNotes = new ArrayList<>();
  private long brokerKilledAtMs;
  private long tickerKilledAtMs;

  /**
   * One fault's window: from the fault to {@code endMs}, normally {@link #WINDOW_TAIL} after it was
   * over ({@code recoveredMs}, {@code Long.MAX_VALUE} if it never was).
   */
  private record FaultWindow(String name, long startMs, long recoveredMs, long endMs) {

    static FaultWindow untilAfterRecovery(String name, long startMs, long recoveredMs) {
      return new FaultWindow(
          name,
          startMs,
          recoveredMs,
          recoveredMs == Long.MAX_VALUE ? Long.MAX_VALUE : recoveredMs + WINDOW_TAIL.toMillis());
    }

    /** Due in the window, or due before it and not started when the fault began. */
    boolean covers(long dueMs, Long startMs) {
      return (dueMs >= startMs() && dueMs <= endMs())
          || (dueMs < startMs() && (startMs == null || startMs > startMs()));
    }
  }

  private record InstanceRow(
      String instanceId, String taskId, String status, int attempt, long dueAtMs) {}

  private record AuditRow(String instanceId, int attempt, String actor, long atMs) {}

  private record StageSpec(String nodeId, Class<?> main) {}

  // ======================================================================================
  // The scenario
  // ======================================================================================

  @BeforeAll
  void runTheDeploymentThroughItsFaults() throws Exception {
    deleteRecursively(runDir);
    Files.createDirectories(logDir);
    Runtime.getRuntime().addShutdownHook(new Thread(this::killEverything, "fault-it-cleanup"));
    host = HostSampler.start(runDir.resolve("host-sampler.probe"));
    namesByPid.put(ProcessHandle.current().pid(), "test-jvm");

    startInfrastructure();
    hooks = HookRecorder.start();
    startInitialStages();
    awaitDeploymentSettled();
    leases = LeaseSampler.start(jdbcUrl, database.user(), database.password());
    brokerProbe = BrokerProbe.start(bootstrap(), PROBE_TOPIC);
    slowStatements = SlowStatementSampler.start(jdbcUrl, database.user(), database.password());

    produceWorkload();
    runFaultSchedule();
    drained = awaitDrained();
    stages.forEach(
        (name, stage) -> {
          if (!stage.isAlive() && !killedByTheTest.contains(name)) {
            endedOnTheirOwn.add(stage.toString());
          }
        });
    collect();
    measure();
    printSummary();
  }

  private void startInfrastructure() throws Exception {
    List<Integer> ports = freeLoopbackPorts(3);
    brokerPort = ports.get(0);
    controllerPort = ports.get(1);
    int databasePort = ports.get(2);
    Future<EmbeddedDatabase> startingDatabase =
        CompletableFuture.supplyAsync(
            () -> EmbeddedDatabase.start(runDir.resolve("mariadb"), databasePort));
    broker = startBroker("broker");
    // Infrastructure, not a stage: reported, not held to the stage target.
    laterStartToReadyMs.put("broker", broker.startToReady(STAGE_READY_TIMEOUT).toMillis());
    database = startingDatabase.get(120, TimeUnit.SECONDS);
    note("broker at " + bootstrap() + ", database at " + database.serverJdbcUrl());

    try (Connection connection =
            DriverManager.getConnection(
                database.serverJdbcUrl(), database.user(), database.password());
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE DATABASE IF NOT EXISTS " + DATABASE_NAME);
    }
    jdbcUrl = database.jdbcUrl(DATABASE_NAME);
    dataSource = Database.open(jdbcUrl, database.user(), database.password(), 4, "fault-test");
    // Once, before any stage starts; the stages start with AX_DB_MIGRATE=false.
    Database.migrate(dataSource);
    TopicProvisioner.ensure(
        KafkaConnection.plaintext(bootstrap()), topics.all(PARTITIONS), (short) 1);
    TopicProvisioner.ensure(
        KafkaConnection.plaintext(bootstrap()), Map.of(PROBE_TOPIC, 1), (short) 1);
  }

  private ChildJvm startBroker(String name) throws IOException {
    ChildJvm started =
        ChildJvm.start(
            name,
            BrokerProcessMain.class.getName(),
            List.of(
                runDir.resolve("kafka").toString(),
                String.valueOf(brokerPort),
                String.valueOf(controllerPort)),
            Map.of(),
            BrokerProcessMain.READY,
            logDir,
            System.getProperty("java.class.path"));
    namesByPid.put(started.pid(), name);
    return started;
  }

  /** One at a time, so that each start-to-ready is measured on an otherwise quiet machine. */
  private void startInitialStages() throws Exception {
    List<StageSpec> specs =
        List.of(
            new StageSpec("ingest-1", IngestMain.class),
            new StageSpec("ticker-1", TickerMain.class),
            new StageSpec("ticker-2", TickerMain.class),
            new StageSpec("dispatcher-1", DispatcherMain.class),
            new StageSpec("dispatcher-2", DispatcherMain.class),
            new StageSpec("retry-1", RetryMain.class),
            new StageSpec("deadletter-1", DeadLetterMain.class),
            new StageSpec("resolver-1", ResolverMain.class));
    for (StageSpec spec : specs) {
      busyAtStartPercent.put(spec.nodeId(), awaitQuietMachine());
      ChildJvm stage = startStage(spec.nodeId(), spec.main());
      initialStartToReadyMs.put(spec.nodeId(), stage.startToReady(STAGE_READY_TIMEOUT).toMillis());
    }
  }

  /**
   * Waits until the machine was less than {@link #QUIET_BUSY_PERCENT} busy over the last second
   * (the JVMs started before have settled: their JIT compilation, partition assignment and first
   * polls), at most {@link #QUIET_AT_MOST}, so that each stage's start is measured on this machine
   * and not on the tail of the previous stage's; returns how busy it was then.
   */
  private int awaitQuietMachine() {
    try {
      await("a settled machine")
          .atMost(QUIET_AT_MOST)
          .pollInterval(Duration.ofMillis(100))
          .until(() -> host.busyPercentOver(1_000) < QUIET_BUSY_PERCENT);
    } catch (ConditionTimeoutException e) {
      // Started anyway: the summary shows how busy the machine was.
    }
    return host.busyPercentOver(1_000);
  }

  /** A stage of the initial deployment: the schema is migrated once, the stage only checks it. */
  private ChildJvm startStage(String nodeId, Class<?> main) throws IOException {
    return startStage(nodeId, main, false);
  }

  /**
   * @param migrate whether the stage runs with {@code AX_DB_MIGRATE=true} (the default a careless
   *     deployment keeps): the replacements do, and must still skip Flyway on the current schema
   */
  private ChildJvm startStage(String nodeId, Class<?> main, boolean migrate) throws IOException {
    Map<String, String> env = new HashMap<>();
    env.put("AX_KAFKA_BOOTSTRAP", bootstrap());
    env.put("AX_JDBC_URL", jdbcUrl);
    env.put("AX_JDBC_USER", database.user());
    env.put("AX_JDBC_PASSWORD", database.password());
    env.put("AX_TOPIC_PREFIX", TOPIC_PREFIX);
    env.put("AX_TOPIC_PARTITIONS", String.valueOf(PARTITIONS));
    env.put("AX_NODE_ID", nodeId);
    env.put("AX_METRICS_BIND", "off");
    env.put("AX_DB_MIGRATE", Boolean.toString(migrate));
    env.put("AX_SHUTDOWN_GRACE", "2s");
    // The ticker lease and heartbeat are the defaults (3 s, 1 s): hand-over is measured as
    // shipped. The run leases and scans are short, so that every recovery fits in the run.
    env.put("AX_REAPER_INTERVAL", "500ms");
    env.put("AX_REAPER_UNCLAIMED_AFTER", "3s");
    env.put("AX_DISPATCHER_LEASE", "5s");
    env.put("AX_RETRY_RESCAN", "1s");
    env.put("AX_TICKER_LOAD_INTERVAL", LOAD_INTERVAL);
    env.put("AX_DISPATCHER_THREADS", "16");
    env.put("AX_HTTP_ALLOWED_HOSTS", "127.0.0.1");
    env.put("AX_HTTP_SIGNING_SECRET", SIGNING_SECRET);
    env.put("AX_RESOLVER_STATE_DIR", runDir.resolve("resolver-state").resolve(nodeId).toString());
    ChildJvm stage =
        ChildJvm.start(
            nodeId, main.getName(), List.of(), env, STAGE_READY_LINE, logDir, stageClassPath());
    stages.put(nodeId, stage);
    namesByPid.put(stage.pid(), nodeId);
    note("started " + stage);
    return stage;
  }

  private void awaitDeploymentSettled() {
    try (Admin admin = KafkaClients.admin(KafkaConnection.plaintext(bootstrap()))) {
      await("ingest holds every commands partition")
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .until(() -> groupCovers(admin, "ingest", Set.of("ingest-1"), topics.commands()));
      await("both dispatchers hold partitions")
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .until(() -> dispatchersAre(admin, Set.of("dispatcher-1", "dispatcher-2")));
    }
    await("a ticker holds the lease")
        .atMost(Duration.ofSeconds(30))
        .until(() -> currentLeader(dataSource).isPresent());
    note("deployment settled; ticker leader " + currentLeader(dataSource).orElse("?"));
  }

  private void produceWorkload() throws Exception {
    t0Ms = nowMs();
    note("workload starts (T0)");
    long firstDueMs = t0Ms + FIRST_DUE.toMillis();
    long spanMs = LAST_DUE.minus(FIRST_DUE).toMillis();
    int spread = TASKS - BURST_TASKS;
    long burstStartMs = t0Ms + DISPATCHER_KILL_AT.minus(BURST_SPAN).toMillis();
    List<Future<RecordMetadata>> sends = new ArrayList<>(TASKS);
    shortNoticeProducer =
        KafkaClients.producer(KafkaConnection.plaintext(bootstrap()), "fault-it-short-notice");
    try (KafkaProducer<String, byte[]> producer =
        KafkaClients.producer(KafkaConnection.plaintext(bootstrap()), "fault-it-producer")) {
      for (int i = 0; i < TASKS; i++) {
        String taskId = String.format("fault-%05d", i);
        long dueMs =
            i < spread
                ? firstDueMs + i * spanMs / (spread - 1)
                : burstStartMs + (i - spread) * BURST_SPAN.toMillis() / BURST_TASKS;
        ProducerRecord<String, byte[]> record =
            new ProducerRecord<>(
                topics.commands(),
                taskId,
                command(i, taskId, dueMs).getBytes(StandardCharsets.UTF_8));
        if (i < spread && i % SHORT_NOTICE_EVERY == SHORT_NOTICE_EVERY - 1) {
          shortNoticeTasks++;
          long sendInMs = Math.max(0, dueMs - SHORT_NOTICE.toMillis() - nowMs());
          shortNotice.schedule(
              () -> shortNoticeProducer.send(record), sendInMs, TimeUnit.MILLISECONDS);
          continue;
        }
        sends.add(producer.send(record));
      }
      producer.flush();
      for (Future<RecordMetadata> send : sends) {
        send.get(30, TimeUnit.SECONDS);
      }
    }
    note(
        "workload produced: "
            + (TASKS - shortNoticeTasks)
            + " commands; "
            + shortNoticeTasks
            + " more each "
            + SHORT_NOTICE.toMillis()
            + " ms before it is due");
    int atStart = TASKS - shortNoticeTasks;
    awaitQuietly(
            "every task sent at T0 stored",
            DISPATCHER_KILL_AT.minusSeconds(2),
            () -> countRows("SELECT COUNT(*) FROM ax_task") >= atStart)
        .ifPresent(at -> note("every task sent at T0 stored"));
  }

  private String command(int i, String taskId, long dueMs) {
    String executor;
    if (i % HTTP_EVERY == 0) {
      boolean failFirst = (i / HTTP_EVERY) % FAIL_FIRST_EVERY == 0;
      String path = (failFirst ? HookRecorder.FAIL_FIRST_ATTEMPT : HookRecorder.OK) + taskId;
      httpTaskPaths.put(taskId, path);
      executor =
          "{\"type\":\"HTTP\",\"url\":\""
              + hooks.baseUrl()
              + path
              + "\",\"method\":\"POST\",\"headers\":{\"Authorization\":\"Bearer "
              + HEADER_SECRET
              + "\"}}";
    } else {
      executor = "{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"}";
    }
    return "{\"v\":1,\"type\":\"CREATE\",\"taskId\":\""
        + taskId
        + "\",\"group\":\""
        + (i % HTTP_EVERY == 0 ? "http" : "noop")
        + "\",\"trigger\":{\"type\":\"ONCE\",\"atMs\":"
        + dueMs
        + "},\"executor\":"
        + executor
        + ",\"timeoutMs\":5000"
        + ",\"retry\":{\"maxRetries\":3,\"backoffBaseMs\":500,\"backoffMaxMs\":2000,"
        + "\"jitter\":false}}";
  }

  private void runFaultSchedule() throws Exception {
    long firstDueMs = t0Ms + FIRST_DUE.toMillis();
    windows.add(
        new FaultWindow(
            "warm-up",
            firstDueMs,
            firstDueMs + WARM_UP.toMillis(),
            firstDueMs + WARM_UP.toMillis()));
    killAndReplaceADispatcher();
    killTheLeadingTicker();
    restartTheBroker();
    restartTheDatabase();
  }

  private void killAndReplaceADispatcher() throws Exception {
    sleepUntil(DISPATCHER_KILL_AT);
    long killedAtMs = nowMs();
    killedByTheTest.add("dispatcher-1");
    stages.get("dispatcher-1").kill();
    note("FAULT dispatcher-1 killed (SIGKILL)");
    try (Admin admin = KafkaClients.admin(KafkaConnection.plaintext(bootstrap()))) {
      awaitQuietly(
              "dispatcher-2 holds every due partition",
              Duration.ofSeconds(25),
              () -> dispatchersAre(admin, Set.of("dispatcher-2")))
          .ifPresent(at -> note("dispatcher group rebalanced onto dispatcher-2"));
      sleepUntil(DISPATCHER_REPLACE_AT);
      ChildJvm replacement = startStage("dispatcher-3", DispatcherMain.class, true);
      laterStartToReadyMs.put(
          "dispatcher-3 (replacement, under load)",
          replacement.startToReady(STAGE_READY_TIMEOUT).toMillis());
      Optional<Long> recovered =
          awaitQuietly(
              "dispatcher-2 and dispatcher-3 share the due partitions",
              Duration.ofSeconds(20),
              () -> dispatchersAre(admin, Set.of("dispatcher-2", "dispatcher-3")));
      recovered.ifPresent(at -> note("dispatcher group rebalanced onto dispatcher-2, -3"));
      // From the burst on: the burst is there to be caught by the kill.
      windows.add(
          FaultWindow.untilAfterRecovery(
              "dispatcher kill",
              Math.min(killedAtMs, t0Ms + DISPATCHER_KILL_AT.minus(BURST_SPAN).toMillis()),
              recovered.orElse(Long.MAX_VALUE)));
    }
  }

  private void killTheLeadingTicker() throws Exception {
    sleepUntil(TICKER_KILL_AT);
    killedTicker = currentLeader(dataSource).orElse("ticker-1");
    tickerKilledAtMs = nowMs();
    killedByTheTest.add(killedTicker);
    stages.get(killedTicker).kill();
    note("FAULT leading ticker " + killedTicker + " killed (SIGKILL)");
    Optional<Long> handedOver =
        awaitQuietly(
            "another ticker holds the lease",
            Duration.ofSeconds(15),
            () -> leases.validHolderOtherThan(killedTicker, tickerKilledAtMs).isPresent());
    handedOver.ifPresent(
        at ->
            note(
                "lease handed over to "
                    + leases.validHolderOtherThan(killedTicker, tickerKilledAtMs).orElse("?")));
    windows.add(
        FaultWindow.untilAfterRecovery(
            "ticker leader kill",
            tickerKilledAtMs,
            leases.validHolderOtherThanAt(killedTicker, tickerKilledAtMs).orElse(Long.MAX_VALUE)));
    // A deployment restarts the dead process: a standby again for the rest of the run.
    ChildJvm replacement = startStage("ticker-3", TickerMain.class, true);
    CompletableFuture.runAsync(
        () -> {
          try {
            laterStartToReadyMs.put(
                "ticker-3 (replacement, under load)",
                replacement.startToReady(STAGE_READY_TIMEOUT).toMillis());
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          } catch (RuntimeException e) {
            note("ticker-3 did not start: " + e);
          }
        });
  }

  private void restartTheBroker() throws Exception {
    sleepUntil(BROKER_KILL_AT);
    brokerKilledAtMs = nowMs();
    broker.kill();
    note("FAULT broker killed (SIGKILL)");
    Thread.sleep(BROKER_DOWN.toMillis()); // holds the outage open
    broker = startBroker("broker-restarted");
    note("broker restarting on the same ports and data");
    try {
      laterStartToReadyMs.put(
          "broker (restart)", broker.startToReady(STAGE_READY_TIMEOUT).toMillis());
      brokerAnsweringAtMs = broker.readyAtMs();
      note("broker answering again");
    } catch (IllegalStateException e) {
      note("broker did not come back: " + e);
    }
    windows.add(
        FaultWindow.untilAfterRecovery("broker restart", brokerKilledAtMs, brokerAnsweringAtMs));
  }

  private void restartTheDatabase() throws Exception {
    if (brokerAnsweringAtMs != Long.MAX_VALUE) {
      sleepUntil(
          Duration.ofMillis(
              Math.max(
                  DATABASE_STOP_AT.toMillis(),
                  brokerAnsweringAtMs + QUIET_AFTER_RECOVERY.toMillis() - t0Ms)));
    } else {
      sleepUntil(DATABASE_STOP_AT);
    }
    long stopAtMs = nowMs();
    databaseStopAtMs = stopAtMs;
    EmbeddedDatabase stopping = database;
    stopping.close();
    databaseStoppedAtMs = nowMs();
    note("FAULT database stopped (took " + (databaseStoppedAtMs - stopAtMs) + " ms)");
    Thread.sleep(DATABASE_DOWN.toMillis()); // holds the outage open
    long startAtMs = nowMs();
    database = EmbeddedDatabase.start(runDir.resolve("mariadb"), stopping.port());
    databaseAnsweringAtMs = nowMs();
    laterStartToReadyMs.put("database (restart)", databaseAnsweringAtMs - startAtMs);
    note("database answering again");
    windows.add(
        FaultWindow.untilAfterRecovery("database restart", stopAtMs, databaseAnsweringAtMs));
  }

  /**
   * The class path a user runs a stage with: the launcher's runtime class path, which the build
   * writes to {@code target/ax-classpath.txt} in the package phase, before this test. The test's
   * own class path is twice as long (the broker's and the test's jars): it makes every stage start
   * slower, which is the harness, not the stage.
   */
  private String stageClassPath() throws IOException {
    Path runtime = Path.of("target", "ax-classpath.txt");
    if (!Files.exists(runtime)) {
      throw new IllegalStateException(runtime + " missing: run the test through mvn verify");
    }
    return Path.of("target", "classes").toAbsolutePath()
        + java.io.File.pathSeparator
        + Files.readString(runtime).trim();
  }

  private boolean awaitDrained() {
    long lastDueMs = t0Ms + LAST_DUE.toMillis();
    Duration atMost = Duration.ofMillis(Math.max(1, lastDueMs - nowMs())).plus(DRAIN_TIMEOUT);
    return awaitQuietly(
            "every instance terminal",
            atMost,
            () ->
                countRows("SELECT COUNT(*) FROM ax_instance") == TASKS
                    && countRows(
                            "SELECT COUNT(*) FROM ax_instance WHERE status NOT IN ("
                                + TERMINAL.stream()
                                    .map(s -> "'" + s + "'")
                                    .collect(Collectors.joining(","))
                                + ")")
                        == 0)
        .isPresent();
  }

  // ======================================================================================
  // Reading back what happened
  // ======================================================================================

  private void collect() throws Exception {
    leases.close();
    brokerProbe.close();
    slowStatements.close();
    host.close();
    calls = hooks.calls();
    try (Connection connection = dataSource.getConnection()) {
      try (Statement statement = connection.createStatement();
          ResultSet rows =
              statement.executeQuery(
                  "SELECT instance_id, task_id, status, attempt, due_at_ms FROM ax_instance")) {
        while (rows.next()) {
          InstanceRow row =
              new InstanceRow(
                  rows.getString(1),
                  rows.getString(2),
                  rows.getString(3),
                  rows.getInt(4),
                  rows.getLong(5));
          instances.put(row.instanceId(), row);
        }
      }
      try (Statement statement = connection.createStatement();
          ResultSet rows =
              statement.executeQuery(
                  "SELECT instance_id, attempt, actor, at_ms FROM ax_instance_log"
                      + " WHERE to_status = 'RUNNING' ORDER BY id")) {
        while (rows.next()) {
          runningRows.add(
              new AuditRow(rows.getString(1), rows.getInt(2), rows.getString(3), rows.getLong(4)));
        }
      }
      try (PreparedStatement select =
          connection.prepareStatement(
              "SELECT instance_id, attempt FROM ax_instance_log WHERE reason = ?")) {
        select.setString(1, ClaimStore.RELEASED_UNSTARTED);
        try (ResultSet rows = select.executeQuery()) {
          while (rows.next()) {
            releasedClaims.merge(rows.getString(1) + "#" + rows.getInt(2), 1L, Long::sum);
          }
        }
      }
      try (Statement statement = connection.createStatement();
          ResultSet rows =
              statement.executeQuery(
                  "SELECT instance_id, MIN(at_ms) FROM ax_instance_log"
                      + " WHERE to_status = 'DISPATCHED' GROUP BY instance_id")) {
        while (rows.next()) {
          firstDispatchedMs.put(rows.getString(1), rows.getLong(2));
        }
      }
      try (PreparedStatement statement =
          connection.prepareStatement(
              "SELECT MIN(at_ms) FROM ax_instance_log"
                  + " WHERE to_status = 'DISPATCHED' AND actor LIKE 'ticker-%' AND actor <> ?"
                  + " AND at_ms > ?")) {
        statement.setString(1, killedTicker);
        statement.setLong(2, tickerKilledAtMs);
        try (ResultSet rows = statement.executeQuery()) {
          if (rows.next() && rows.getObject(1) != null) {
            firingResumedMs = Optional.of(rows.getLong(1) - tickerKilledAtMs);
          }
        }
      }
    }
    for (TaskCompletedEvent event : readCompletedFromTheBeginning()) {
      eventsByInstance.computeIfAbsent(event.instanceId(), id -> new ArrayList<>()).add(event);
    }
  }

  private List<TaskCompletedEvent> readCompletedFromTheBeginning() {
    List<TaskCompletedEvent> events = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer =
        KafkaClients.consumer(
            KafkaConnection.plaintext(bootstrap()),
            "fault-it-check-" + UUID.randomUUID(),
            "fault-it-check",
            5_000,
            new SimpleMeterRegistry())) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (PartitionInfo info :
          consumer.partitionsFor(topics.completed(), Duration.ofSeconds(30))) {
        partitions.add(new TopicPartition(info.topic(), info.partition()));
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
        if (System.nanoTime() > deadline) {
          note("completed topic not read to its end within 60 s");
          break;
        }
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(500))) {
          try {
            events.add(AxJson.read(record.value(), TaskCompletedEvent.class));
          } catch (RuntimeException e) {
            note("unreadable completion event at " + record.partition() + "@" + record.offset());
          }
        }
      }
    }
    return events;
  }

  private void measure() {
    Map<String, Long> firstRunningMs = new HashMap<>();
    for (AuditRow row : runningRows) {
      firstRunningMs.merge(row.instanceId(), row.atMs(), Math::min);
    }
    Map<String, Long> firstCallMs = new HashMap<>();
    for (HookRecorder.Call call : calls) {
      if (call.instanceId() != null) {
        firstCallMs.merge(call.instanceId(), call.arrivedAtMs(), Math::min);
      }
    }
    for (InstanceRow row : instances.values()) {
      Long start =
          httpTaskPaths.containsKey(row.taskId()) && firstCallMs.containsKey(row.instanceId())
              ? firstCallMs.get(row.instanceId())
              : firstRunningMs.get(row.instanceId());
      if (start != null) {
        firstStartMs.put(row.instanceId(), start);
        latenessMs.put(row.instanceId(), start - row.dueAtMs());
      }
    }
    leaseHandOverMs =
        leases
            .validHolderOtherThanAt(killedTicker, tickerKilledAtMs)
            .map(at -> at - tickerKilledAtMs);
    brokerOnTimeAgainMs = onTimeAgainAfter(brokerAnsweringAtMs, databaseStopAtMs);
    databaseOnTimeAgainMs = onTimeAgainAfter(databaseAnsweringAtMs, Long.MAX_VALUE);
  }

  /**
   * How long after {@code answeringAtMs} the instances due from then on (up to the next fault at
   * {@code untilMs}) started on time again: the start of the last of them that was late (lateness
   * at least {@link #ON_TIME_MS}, or never started), less {@code answeringAtMs}; 0 if none was
   * late. Empty if the server never answered.
   */
  private Optional<Long> onTimeAgainAfter(long answeringAtMs, long untilMs) {
    if (answeringAtMs == Long.MAX_VALUE) {
      return Optional.empty();
    }
    InstanceRow lastLate = null;
    long lastLateStartMs = answeringAtMs;
    for (InstanceRow row : instances.values()) {
      // Due so close to the next fault that even an on-time start may fall after it: not counted.
      if (row.dueAtMs() < answeringAtMs
          || row.dueAtMs() >= untilMs - NEXT_FAULT_MARGIN.toMillis()) {
        continue;
      }
      Long lateness = latenessMs.get(row.instanceId());
      Long start = firstStartMs.get(row.instanceId());
      if (lateness == null || start >= untilMs) {
        // Still not started when the next fault began: not on time again before it.
        onTimeAgainNotes.add(
            offset(answeringAtMs)
                + ": not on time before the next fault at "
                + offset(untilMs)
                + " (e.g. "
                + row.instanceId()
                + " due "
                + offset(row.dueAtMs())
                + ", started "
                + (start == null ? "never" : offset(start))
                + ")");
        return Optional.of(Long.MAX_VALUE);
      }
      if (lateness >= ON_TIME_MS && start > lastLateStartMs) {
        lastLateStartMs = start;
        lastLate = row;
      }
    }
    if (lastLate != null) {
      onTimeAgainNotes.add(
          offset(answeringAtMs)
              + ": last late instance "
              + lastLate.instanceId()
              + " due "
              + offset(lastLate.dueAtMs())
              + ", started "
              + offset(lastLateStartMs)
              + " ("
              + latenessMs.get(lastLate.instanceId())
              + " ms late)");
    }
    return Optional.of(lastLateStartMs - answeringAtMs);
  }

  private List<Long> latenessOutsideWindows() {
    return latenessOutsideWindowsDueIn(Long.MIN_VALUE, Long.MAX_VALUE);
  }

  /** The stretches of due times between the fault windows, as {from, to} pairs. */
  private List<long[]> outsideSegments() {
    List<long[]> segments = new ArrayList<>();
    long from = t0Ms + FIRST_DUE.toMillis();
    List<FaultWindow> byStart = new ArrayList<>(windows);
    byStart.sort(Comparator.comparingLong(FaultWindow::startMs));
    for (FaultWindow window : byStart) {
      if (window.startMs() > from) {
        segments.add(new long[] {from, window.startMs()});
      }
      from = Math.max(from, window.endMs());
    }
    long lastDueMs = t0Ms + LAST_DUE.toMillis();
    if (from < lastDueMs) {
      segments.add(new long[] {from, lastDueMs});
    }
    return segments;
  }

  private List<Long> latenessOutsideWindowsDueIn(long fromMs, long toMs) {
    List<Long> outside = new ArrayList<>();
    for (InstanceRow row : instances.values()) {
      if (row.dueAtMs() < fromMs || row.dueAtMs() > toMs) {
        continue;
      }
      Long lateness = latenessMs.get(row.instanceId());
      Long start = firstStartMs.get(row.instanceId());
      if (lateness != null && windows.stream().noneMatch(w -> w.covers(row.dueAtMs(), start))) {
        outside.add(lateness);
      }
    }
    return outside;
  }

  private List<Long> latenessDueIn(FaultWindow window) {
    List<Long> inside = new ArrayList<>();
    for (InstanceRow row : instances.values()) {
      Long lateness = latenessMs.get(row.instanceId());
      if (lateness != null && window.covers(row.dueAtMs(), firstStartMs.get(row.instanceId()))) {
        inside.add(lateness);
      }
    }
    return inside;
  }

  private void printSummary() throws IOException {
    List<String> lines = new ArrayList<>();
    lines.add(
        "DeploymentFaultIT summary ("
            + Instant.ofEpochMilli(testStartMs)
            + ", "
            + Runtime.getRuntime().availableProcessors()
            + " cores)");
    lines.add(
        String.format(
            "  run: %d tasks (%d HTTP, %d of them 503 on attempt 1), due +%ds..+%ds after T0,"
                + " %d of them in the %d ms before the dispatcher kill; harness %.1f s so far;"
                + " drained: %s",
            TASKS,
            httpTaskPaths.size(),
            httpTaskPaths.values().stream()
                .filter(p -> p.startsWith(HookRecorder.FAIL_FIRST_ATTEMPT))
                .count(),
            FIRST_DUE.toSeconds(),
            LAST_DUE.toSeconds(),
            BURST_TASKS,
            BURST_SPAN.toMillis(),
            (nowMs() - testStartMs) / 1000.0,
            drained));
    lines.add("  statuses: " + new TreeMap<>(statusCounts()));
    lines.add(
        "  start-to-ready ms (target < "
            + START_TO_READY_TARGET.toMillis()
            + "): "
            + initialStartToReadyMs
            + "; machine busy % when each was started: "
            + busyAtStartPercent);
    lines.add(
        "  start-to-ready ms, infrastructure and during the run (reported only): "
            + laterStartToReadyMs);
    for (FaultWindow window : windows) {
      lines.add(
          String.format(
              "  window %-18s [%s, %s] recovered %s: %s",
              window.name(),
              offset(window.startMs()),
              offset(window.endMs()),
              offset(window.recoveredMs()),
              stats(latenessDueIn(window))));
    }
    for (long[] segment : outsideSegments()) {
      lines.add(
          String.format(
              "  outside windows   [%s, %s]: %s",
              offset(segment[0]),
              offset(segment[1]),
              stats(latenessOutsideWindowsDueIn(segment[0], segment[1]))));
    }
    lines.add(
        String.format(
            "  outside windows, all                     : %s (target p99 < %d, max < %d ms)",
            stats(latenessOutsideWindows()), LATENESS_P99_TARGET_MS, LATENESS_MAX_TARGET_MS));
    lines.add(
        String.format(
            "  all instances                            : %s", stats(latenessMs.values())));
    LateStretchReport stretches = lateStretchReport();
    stretches.lines().forEach(line -> lines.add("  " + line));
    lines.stream().filter(line -> line.contains("outside windows")).forEach(outsideReport::add);
    stretches.lines().forEach(outsideReport::add);
    for (long[] segment : outsideSegments()) {
      lines.add(
          "  probes outside windows ["
              + offset(segment[0])
              + ", "
              + offset(segment[1])
              + "]: "
              + stretches.probes(segment[0], segment[1])
              + "; spikes: "
              + stretches.spikes(segment[0], segment[1]));
    }
    List<SlowStatementSampler.Finding> slow = slowStatements.findings();
    lines.add(
        "  statements running over "
            + SlowStatementSampler.SLOW_MS
            + " ms, or waiting for a lock (first "
            + Math.min(slow.size(), MAX_SLOW_LINES)
            + " of "
            + slow.size()
            + ")"
            + slowStatements.refused().map(r -> ", a sampler query was refused: " + r).orElse("")
            + ":");
    slow.stream()
        .limit(MAX_SLOW_LINES)
        .forEach(
            f ->
                lines.add(
                    String.format(
                        "    %s %5d ms %s [%s] %s",
                        offset(f.atMs()),
                        f.longestMs(),
                        windows.stream().anyMatch(w -> w.covers(f.atMs(), f.atMs()))
                            ? "in a window"
                            : "outside",
                        f.state(),
                        f.sql().replaceAll("\\s+", " "))));
    lines.add(
        "  ticker hand-over from "
            + killedTicker
            + ": lease "
            + ms(leaseHandOverMs)
            + ", firing by another ticker "
            + ms(firingResumedMs)
            + " (target < "
            + HAND_OVER_TARGET.toMillis()
            + " ms)");
    lines.add(
        "  broker: killed "
            + offset(brokerKilledAtMs)
            + ", answering "
            + offset(brokerAnsweringAtMs)
            + " ("
            + gap(brokerKilledAtMs, brokerAnsweringAtMs)
            + " down), on time again "
            + ms(brokerOnTimeAgainMs)
            + " after answering (target < "
            + ON_TIME_AGAIN_TARGET.toMillis()
            + " ms)");
    lines.add(
        "  database: stopped "
            + offset(databaseStoppedAtMs)
            + ", answering "
            + offset(databaseAnsweringAtMs)
            + " ("
            + gap(databaseStoppedAtMs, databaseAnsweringAtMs)
            + " down), on time again "
            + ms(databaseOnTimeAgainMs)
            + " after answering; ticker lease after it: "
            + leases.describeAfter(databaseStoppedAtMs, databaseAnsweringAtMs));
    onTimeAgainNotes.forEach(note -> lines.add("  on time again after " + note));
    lines.add(
        "  attempts started twice (audit/http): "
            + attemptsStartedTwiceInTheAudit().size()
            + "/"
            + attemptsCalledTwice().size()
            + "; started early (audit/http): "
            + startedBeforeDueInTheAudit().size()
            + "/"
            + calledBeforeDue().size()
            + "; earliest call vs due: "
            + earliestCallVersusDueMs()
            + " ms");
    lines.add(
        "  completion events: "
            + eventsByInstance.values().stream().mapToInt(List::size).sum()
            + " for "
            + eventsByInstance.size()
            + " instances; terminal instances without their event: "
            + terminalWithoutCompletionEvent().size()
            + " "
            + examples(terminalWithoutCompletionEvent())
            + "; HTTP calls: "
            + calls.size());
    lines.add("  timeline:");
    timeline.forEach(line -> lines.add("    " + line));
    lines.add("DeploymentFaultIT summary end");
    writeInstancesCsv();
    String summary = String.join("\n", lines);
    System.out.println(summary);
    Files.writeString(runDir.resolve("summary.txt"), summary + "\n");
  }

  private LateStretchReport lateStretchReport() {
    List<LateStretchReport.Start> outside = new ArrayList<>();
    for (InstanceRow row : instances.values()) {
      Long start = firstStartMs.get(row.instanceId());
      if (start != null && windows.stream().noneMatch(w -> w.covers(row.dueAtMs(), start))) {
        outside.add(
            new LateStretchReport.Start(
                row.instanceId(),
                row.dueAtMs(),
                firstDispatchedMs.getOrDefault(row.instanceId(), -1L),
                start));
      }
    }
    return new LateStretchReport(
        outside,
        leases.samples(),
        brokerProbe.samples(),
        host,
        slowStatements,
        namesByPid,
        this::offset);
  }

  /** One line per instance, for a closer look at a run: target/deployment-fault/instances.csv. */
  private void writeInstancesCsv() throws IOException {
    List<String> csv = new ArrayList<>();
    csv.add(
        "instance_id,kind,due_offset_ms,first_dispatched_offset_ms,first_start_offset_ms,lateness_ms,"
            + "status,attempt,window");
    instances.values().stream()
        .sorted(Comparator.comparingLong(InstanceRow::dueAtMs))
        .forEach(
            row -> {
              Long start = firstStartMs.get(row.instanceId());
              Long dispatched = firstDispatchedMs.get(row.instanceId());
              csv.add(
                  String.join(
                      ",",
                      row.instanceId(),
                      httpTaskPaths.containsKey(row.taskId()) ? "http" : "noop",
                      String.valueOf(row.dueAtMs() - t0Ms),
                      dispatched == null ? "" : String.valueOf(dispatched - t0Ms),
                      start == null ? "" : String.valueOf(start - t0Ms),
                      String.valueOf(latenessMs.getOrDefault(row.instanceId(), -1L)),
                      row.status(),
                      String.valueOf(row.attempt()),
                      windows.stream()
                          .filter(w -> w.covers(row.dueAtMs(), start))
                          .map(w -> w.name().replace(' ', '-'))
                          .collect(Collectors.joining("+"))));
            });
    Files.write(runDir.resolve("instances.csv"), csv);
  }

  // ======================================================================================
  // The checks
  // ======================================================================================

  @Test
  @Order(1)
  void everyTaskEndedInATerminalStatus() {
    Map<String, Long> notTerminal =
        instances.values().stream()
            .filter(row -> !TERMINAL.contains(row.status()))
            .collect(Collectors.groupingBy(InstanceRow::status, Collectors.counting()));
    assertThat(instances)
        .as(
            "one instance per ONE-shot task: fewer means a create was lost (ingest) or never"
                + " fired")
        .hasSize(TASKS);
    assertThat(notTerminal)
        .as(
            "instances not terminal %s after the last was due: a due event, a run or an outcome"
                + " lost in a fault and never recovered (reaper, retry scan, lease expiry);"
                + " e.g. %s",
            DRAIN_TIMEOUT,
            examples(
                instances.values().stream()
                    .filter(row -> !TERMINAL.contains(row.status()))
                    .map(row -> row.instanceId() + "=" + row.status())
                    .toList()))
        .isEmpty();
  }

  @Test
  @Order(2)
  void noAttemptStartedTwice() {
    assertThat(attemptsStartedTwiceInTheAudit())
        .as(
            "attempts with two RUNNING audit rows: the claim is not exclusive (two dispatchers,"
                + " a replayed due event or a stale leader started the same attempt)")
        .isEmpty();
    assertThat(attemptsCalledTwice())
        .as(
            "HTTP calls with the same instance and X-AX-Attempt: an attempt ran twice (claim not"
                + " exclusive, or an executor retried inside one attempt)")
        .isEmpty();
  }

  @Test
  @Order(3)
  void noAttemptStartedBeforeItsDueTime() {
    assertThat(startedBeforeDueInTheAudit())
        .as(
            "RUNNING audit rows before the due time: the claim's due_at_ms <= now guard or the"
                + " ticker's clock is wrong")
        .isEmpty();
    assertThat(calledBeforeDue())
        .as(
            "HTTP calls more than %d ms before the due time: a stage's clock runs ahead of the"
                + " database's, or the ticker fired early (e.g. after a hand-over or restart)",
            EARLY_TOLERANCE_MS)
        .isEmpty();
  }

  @Test
  @Order(4)
  void everyTerminalInstanceHasItsCompletionEvent() {
    assertThat(terminalWithoutCompletionEvent())
        .as(
            "terminal instances with no completion event of that status on %s: an outcome was"
                + " committed to the database but its event was lost (e.g. sent without waiting"
                + " while the broker or a dispatcher died)",
            topics.completed())
        .isEmpty();
  }

  @Test
  @Order(5)
  void everyCallOfAnInstanceCarriedItsInstanceIdAsIdempotencyKey() {
    Map<String, Set<String>> keysByInstance = new HashMap<>();
    List<String> wrong = new ArrayList<>();
    for (HookRecorder.Call call : calls) {
      String taskId = call.path().substring(call.path().lastIndexOf('/') + 1);
      Optional<InstanceRow> row =
          instances.values().stream().filter(r -> r.taskId().equals(taskId)).findFirst();
      String expected = row.map(InstanceRow::instanceId).orElse("?");
      keysByInstance.computeIfAbsent(expected, id -> new HashSet<>()).add(call.idempotencyKey());
      if (!expected.equals(call.idempotencyKey()) || !expected.equals(call.instanceId())) {
        wrong.add(
            taskId
                + " attempt "
                + call.attempt()
                + ": key="
                + call.idempotencyKey()
                + " instance="
                + call.instanceId());
      }
    }
    assertThat(wrong)
        .as(
            "calls whose Idempotency-Key (or X-AX-Instance-Id) is not the instance id: the"
                + " endpoint cannot de-duplicate AX's retries")
        .isEmpty();
    assertThat(keysByInstance.values())
        .as("instances whose calls carried different keys: the key changes between attempts")
        .allSatisfy(keys -> assertThat(keys).hasSize(1));
    List<String> succeededUncalled =
        instances.values().stream()
            .filter(r -> httpTaskPaths.containsKey(r.taskId()))
            .filter(r -> r.status().equals("SUCCESS"))
            .filter(r -> calls.stream().noneMatch(c -> r.instanceId().equals(c.instanceId())))
            .map(InstanceRow::instanceId)
            .toList();
    assertThat(succeededUncalled)
        .as("HTTP instances recorded SUCCESS that never called the endpoint")
        .isEmpty();
  }

  @Test
  @Order(6)
  void latenessOutsideFaultWindowsIsWithinTarget() {
    long[] sorted = sorted(latenessOutsideWindows());
    assertThat(sorted.length)
        .as("instances due outside every fault window (the measurement has data)")
        .isGreaterThan(TASKS / 10);
    assertThat(percentile(sorted, 0.99))
        .as(
            "p99 lateness (ms) outside fault windows: the steady path (ticker firing, due topic,"
                + " claim) is slow, or a fault's effect outlasts its window; %s\n%s",
            stats(latenessOutsideWindows()), String.join("\n", outsideReport))
        .isLessThan(LATENESS_P99_BOUND_MS);
    assertThat(sorted[sorted.length - 1])
        .as(
            "max lateness (ms) outside fault windows: some instance waited (a lost announcement,"
                + " a held event, a slow window load); %s\n%s",
            stats(latenessOutsideWindows()), String.join("\n", outsideReport))
        .isLessThan(LATENESS_MAX_BOUND_MS);
  }

  @Test
  @Order(7)
  void tickerHandsOverWithinTarget() {
    assertThat(leaseHandOverMs)
        .as(
            "time from killing the leading ticker (%s) to another ticker holding a valid lease:"
                + " the standby does not take an expired lease (lease/heartbeat too long, or it"
                + " stopped trying)",
            killedTicker)
        .hasValueSatisfying(ms -> assertThat(ms).isLessThan(HAND_OVER_TARGET.toMillis()));
    assertThat(firingResumedMs)
        .as(
            "time from killing the leading ticker to the first DISPATCHED row by another ticker:"
                + " the new leader holds the lease but does not fire (window not loaded, waits for"
                + " announcements it does not get)")
        .hasValueSatisfying(ms -> assertThat(ms).isLessThan(HAND_OVER_TARGET.toMillis()));
  }

  @Test
  @Order(8)
  void onTimeAgainSoonAfterTheBrokerAnswers() {
    assertThat(brokerOnTimeAgainMs)
        .as(
            "ms from the restarted broker answering to instances starting on time again: the"
                + " stages reconnect or resume slowly after a broker outage (producer/consumer"
                + " back-off, a paused loop, a stuck rebalance)")
        .hasValueSatisfying(ms -> assertThat(ms).isLessThan(ON_TIME_AGAIN_TARGET.toMillis()));
  }

  @Test
  @Order(9)
  void onTimeAgainSoonAfterTheDatabaseAnswers() {
    assertThat(databaseOnTimeAgainMs)
        .as(
            "ms from the restarted database answering to instances starting on time again: the"
                + " pools, the ticker lease or the outage pause recover slowly; ticker lease: %s",
            leases.describeAfter(databaseStoppedAtMs, databaseAnsweringAtMs))
        .hasValueSatisfying(ms -> assertThat(ms).isLessThan(ON_TIME_AGAIN_TARGET.toMillis()));
    List<String> skewAlarms = new ArrayList<>();
    try (var logs = Files.list(logDir)) {
      for (Path log : logs.filter(p -> p.getFileName().toString().startsWith("ticker")).toList()) {
        Files.readAllLines(log).stream()
            .filter(line -> line.contains("Database clock skew"))
            .forEach(line -> skewAlarms.add(log.getFileName() + ": " + line));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertThat(skewAlarms)
        .as(
            "clock skew alarms in the tickers' logs: a clock reading that waited for a pooled"
                + " connection was taken for skew, and firing stopped for a re-anchor period")
        .isEmpty();
  }

  @Test
  @Order(10)
  void everyStageIsReadyWithinTargetOfItsStart() {
    assertThat(initialStartToReadyMs)
        .as(
            "ms from process start to \"%s\" per stage: a stage's"
                + " start does too much before it runs (class loading, migrations, topic"
                + " checks, clock anchoring, waiting on the broker)",
            STAGE_READY_LINE)
        .allSatisfy(
            (name, ms) -> assertThat(ms).as(name).isLessThan(START_TO_READY_BOUND.toMillis()));
    for (String replacement : List.of("dispatcher-3", "ticker-3")) {
      String log;
      try {
        log = Files.readString(logDir.resolve(replacement + ".log"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      assertThat(log)
          .as(
              "%s started with AX_DB_MIGRATE=true on the current schema: it must skip Flyway"
                  + " (which costs seconds of every start), not run it",
              replacement)
          .contains("Schema at version " + Database.SCHEMA_VERSION + ": nothing to migrate")
          .doesNotContain("migration(s) applied now");
    }
  }

  @Test
  @Order(11)
  void noStageEndedOnItsOwn() {
    assertThat(endedOnTheirOwn)
        .as(
            "stages the test did not kill that had ended by the time the workload drained: a"
                + " stage must ride out a fault of the broker or the database (one started during"
                + " the broker's outage used to exit on a metadata timeout); see each one's log")
        .isEmpty();
  }

  @Test
  @Order(12)
  void noProcessWroteASecret() throws IOException {
    List<String> secrets = new ArrayList<>(List.of(SIGNING_SECRET, HEADER_SECRET));
    if (database.password().length() >= 8) {
      secrets.add(database.password());
    }
    List<String> leaks = new ArrayList<>();
    int linesRead = 0;
    try (var logs = Files.list(logDir)) {
      for (Path log : logs.toList()) {
        for (String line : Files.readAllLines(log)) {
          linesRead++;
          for (String secret : secrets) {
            if (line.contains(secret)) {
              leaks.add(log.getFileName() + ": " + line.replace(secret, "<secret>"));
            }
          }
        }
      }
    }
    assertThat(linesRead).as("the stages' log lines were read").isPositive();
    assertThat(leaks)
        .as(
            "log lines of the stage processes holding the signing secret, a task's header value or"
                + " the database password (shown masked): a path logs a config or a spec unmasked")
        .isEmpty();
  }

  // ======================================================================================
  // Findings used by the checks and the summary
  // ======================================================================================

  /** Claims (→ RUNNING) of one attempt beyond its first, less those a release undid unstarted. */
  private List<String> attemptsStartedTwiceInTheAudit() {
    Map<String, Long> counts =
        runningRows.stream()
            .collect(
                Collectors.groupingBy(
                    r -> r.instanceId() + "#" + r.attempt(), Collectors.counting()));
    return counts.entrySet().stream()
        .filter(e -> e.getValue() - releasedClaims.getOrDefault(e.getKey(), 0L) > 1)
        .map(Map.Entry::getKey)
        .toList();
  }

  private List<String> attemptsCalledTwice() {
    Map<String, Long> counts =
        calls.stream()
            .collect(
                Collectors.groupingBy(
                    c -> c.instanceId() + "#" + c.attempt(), Collectors.counting()));
    return counts.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).toList();
  }

  private List<String> startedBeforeDueInTheAudit() {
    return runningRows.stream()
        .filter(r -> instances.containsKey(r.instanceId()))
        .filter(r -> r.atMs() < instances.get(r.instanceId()).dueAtMs())
        .map(r -> r.instanceId() + "#" + r.attempt() + " by " + r.actor())
        .toList();
  }

  private List<String> calledBeforeDue() {
    return calls.stream()
        .filter(c -> c.instanceId() != null && instances.containsKey(c.instanceId()))
        .filter(c -> c.arrivedAtMs() < instances.get(c.instanceId()).dueAtMs() - EARLY_TOLERANCE_MS)
        .map(
            c ->
                c.instanceId()
                    + "#"
                    + c.attempt()
                    + " "
                    + (instances.get(c.instanceId()).dueAtMs() - c.arrivedAtMs())
                    + " ms early")
        .toList();
  }

  private String earliestCallVersusDueMs() {
    return calls.stream()
        .filter(c -> c.instanceId() != null && instances.containsKey(c.instanceId()))
        .mapToLong(c -> c.arrivedAtMs() - instances.get(c.instanceId()).dueAtMs())
        .min()
        .stream()
        .mapToObj(Long::toString)
        .findFirst()
        .orElse("n/a");
  }

  private List<String> terminalWithoutCompletionEvent() {
    List<String> missing = new ArrayList<>();
    for (InstanceRow row : instances.values()) {
      if (!TERMINAL.contains(row.status())) {
        continue;
      }
      boolean found =
          eventsByInstance.getOrDefault(row.instanceId(), List.of()).stream()
              .anyMatch(
                  e ->
                      row.status()
                          .equals(
                              String.valueOf(
                                  e.instanceStatus() != null ? e.instanceStatus() : e.status())));
      if (!found) {
        String ranBy =
            runningRows.stream()
                .filter(r -> r.instanceId().equals(row.instanceId()))
                .map(r -> r.actor() + " at " + offset(r.atMs()))
                .collect(Collectors.joining(", "));
        missing.add(row.instanceId() + "=" + row.status() + " (run by " + ranBy + ")");
      }
    }
    return missing;
  }

  private Map<String, Long> statusCounts() {
    return instances.values().stream()
        .collect(Collectors.groupingBy(InstanceRow::status, Collectors.counting()));
  }

  // ======================================================================================
  // Helpers
  // ======================================================================================

  @AfterAll
  void stopEverything() {
    shortNotice.shutdownNow();
    if (shortNoticeProducer != null) {
      shortNoticeProducer.close(Duration.ofSeconds(5));
    }
    if (leases != null) {
      leases.close();
    }
    killEverything();
    if (hooks != null) {
      hooks.close();
    }
    if (dataSource != null) {
      dataSource.close();
    }
    EmbeddedDatabase db = database;
    if (db != null) {
      db.close();
    }
  }

  private final AtomicBoolean killed = new AtomicBoolean();

  /** Kills every child JVM (also from a shutdown hook, so none outlives an aborted run). */
  private void killEverything() {
    if (!killed.compareAndSet(false, true)) {
      return;
    }
    List<ChildJvm> children = new ArrayList<>(stages.values());
    if (broker != null) {
      children.add(broker);
    }
    for (ChildJvm child : children) {
      try {
        child.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private String bootstrap() {
    return "127.0.0.1:" + brokerPort;
  }

  /** Whether the dispatchers' group consists of exactly these nodes, holding every partition. */
  private boolean dispatchersAre(Admin admin, Set<String> nodeIds) throws Exception {
    return groupCovers(admin, "dispatcher", nodeIds, topics.due(), topics.dueRetry());
  }

  private boolean groupCovers(Admin admin, String stage, Set<String> nodeIds, String... topicNames)
      throws Exception {
    String group = topics.group(stage);
    ConsumerGroupDescription description =
        admin.describeConsumerGroups(List.of(group)).all().get(5, TimeUnit.SECONDS).get(group);
    Set<String> clients = new HashSet<>();
    Set<TopicPartition> held = new HashSet<>();
    for (MemberDescription member : description.members()) {
      clients.add(member.clientId());
      held.addAll(member.assignment().topicPartitions());
    }
    Set<String> expectedClients =
        nodeIds.stream().map(id -> id + "-" + stage).collect(Collectors.toSet());
    Set<TopicPartition> all = new HashSet<>();
    for (String topic : topicNames) {
      for (int p = 0; p < PARTITIONS; p++) {
        all.add(new TopicPartition(topic, p));
      }
    }
    return clients.equals(expectedClients) && held.containsAll(all);
  }

  /** The holder of a valid ticker lease, by the database's clock. */
  private static Optional<String> currentLeader(HikariDataSource dataSource) {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(LeaseSampler.QUERY)) {
      if (rows.next() && rows.getBoolean(4)) {
        return Optional.ofNullable(rows.getString(1));
      }
      return Optional.empty();
    } catch (Exception e) {
      return Optional.empty();
    }
  }

  private long countRows(String sql) {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getLong(1);
    } catch (Exception e) {
      return -1;
    }
  }

  /**
   * Awaits {@code condition} (exceptions count as false) and returns when it held, or notes the
   * timeout and returns empty: a fault that does not recover is a finding for the checks, not a
   * reason to abandon the run.
   */
  private Optional<Long> awaitQuietly(String what, Duration atMost, Callable<Boolean> condition) {
    try {
      await(what)
          .atMost(atMost)
          .pollInterval(Duration.ofMillis(100))
          .ignoreExceptions()
          .until(condition);
      return Optional.of(nowMs());
    } catch (ConditionTimeoutException e) {
      note("TIMEOUT waiting " + atMost.toMillis() + " ms for: " + what);
      return Optional.empty();
    }
  }

  /**
   * Sleeps until {@code offset} after T0: the faults happen at fixed times of the workload so that
   * their windows are known; nothing waits on this for a condition.
   */
  private void sleepUntil(Duration offset) throws InterruptedException {
    long waitMs = t0Ms + offset.toMillis() - nowMs();
    if (waitMs > 0) {
      Thread.sleep(waitMs);
    } else {
      note(
          "schedule running " + -waitMs + " ms late for the step at +" + offset.toSeconds() + " s");
    }
  }

  private void note(String message) {
    long now = nowMs();
    String line =
        LocalTime.ofInstant(Instant.ofEpochMilli(now), ZoneId.systemDefault()).format(CLOCK)
            + " "
            + (t0Ms == 0 ? "(setup)" : offset(now))
            + " "
            + message;
    timeline.add(line);
    System.out.println("DeploymentFaultIT: " + line);
  }

  /** {@code +12.345s} from T0. */
  private String offset(long atMs) {
    if (atMs == Long.MAX_VALUE) {
      return "never";
    }
    return String.format("%+.3fs", (atMs - t0Ms) / 1000.0);
  }

  private static String gap(long fromMs, long toMs) {
    return toMs == Long.MAX_VALUE ? "never back" : (toMs - fromMs) + " ms";
  }

  private static String ms(Optional<Long> value) {
    return value.map(v -> v == Long.MAX_VALUE ? "never" : v + " ms").orElse("never");
  }

  private static String stats(Collection<Long> values) {
    long[] sorted = sorted(values);
    if (sorted.length == 0) {
      return "n=0";
    }
    return String.format(
        "n=%d lateness ms p50=%d p99=%d max=%d",
        sorted.length,
        percentile(sorted, 0.50),
        percentile(sorted, 0.99),
        sorted[sorted.length - 1]);
  }

  private static long[] sorted(Collection<Long> values) {
    return values.stream().mapToLong(Long::longValue).sorted().toArray();
  }

  /** The nearest-rank percentile of a sorted, non-empty array. */
  private static long percentile(long[] sorted, double quantile) {
    int rank = (int) Math.ceil(quantile * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  private static String examples(List<String> items) {
    return items.size() <= 10
        ? items.toString()
        : items.subList(0, 10) + " and " + (items.size() - 10) + " more";
  }

  private static List<Integer> freeLoopbackPorts(int count) {
    List<ServerSocket> sockets = new ArrayList<>();
    try {
      for (int i = 0; i < count; i++) {
        sockets.add(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
      }
      return sockets.stream().map(ServerSocket::getLocalPort).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      for (ServerSocket socket : sockets) {
        try {
          socket.close();
        } catch (IOException e) {
          // closing a probe socket; nothing to do
        }
      }
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }

  /** The host's wall clock, which the stages' database clock and the recorder also read. */
  private static long nowMs() {
    return System.currentTimeMillis();
  }
}
