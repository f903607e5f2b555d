package dev.ax.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.contract.TaskDueEvent;
import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.RetryPolicy;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.stage.StageContext;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.LeaseStore;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.StatusPath;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TestTasks;
import dev.ax.common.testing.TopicReader;
import dev.ax.dispatcher.store.ClaimStore;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.embedded.junit.WallClock;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(AxInfraExtension.class)
class DispatcherStageIT {

  private static final Duration DEADLINE = Duration.ofSeconds(30);

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private TestRuntime runtime;
  private KafkaProducer<String, byte[]> producer;
  private long seq;

  private void open(AxTestEnv env, Map<String, String> config) {
    runtime = TestRuntime.open(env, config);
    producer = KafkaClients.producer(runtime.kafka(), "test-producer");
  }

  @AfterEach
  void tearDown() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    producer.close();
    runtime.close();
  }

  private DispatcherStage dispatcher(String nodeId) {
    DispatcherStage stage =
        new DispatcherStage(runtime.context(nodeId), DispatcherConfig.from(runtime.config()))
            .start();
    closeables.add(stage);
    return stage;
  }

  /** A dispatcher started as {@code nodeId}: its context, whose meters a test reads. */
  private StageContext dispatcherContext(String nodeId) {
    StageContext context = runtime.context(nodeId);
    closeables.add(new DispatcherStage(context, DispatcherConfig.from(runtime.config())).start());
    return context;
  }

  /** Stores a quick task (the counting handler, a 5 s timeout), DISPATCHED now. */
  private String dispatchedQuick(String taskId) {
    return dispatched(taskId, ExecutorSpec.inProcess("count"), Duration.ofSeconds(5));
  }

  /** Stores a task whose instance is DISPATCHED now, as the ticker would leave it. */
  private String dispatched(String taskId, ExecutorSpec executor, Duration timeout) {
    return dispatchedIn(taskId, "default", executor, timeout, Map.of());
  }

  /** Stores a quick task of {@code group}, DISPATCHED now, and emits its due event. */
  private String emitQuick(String taskId, String group) throws Exception {
    String id =
        dispatchedIn(
            taskId, group, ExecutorSpec.inProcess("count"), Duration.ofSeconds(5), Map.of());
    emitDue(id, null);
    return id;
  }

  /**
   * Start lateness (start minus due) of each completion event of a task whose id starts with {@code
   * prefix}, each of which must have succeeded.
   */
  private static List<Long> successfulStartLateness(
      List<ConsumerRecord<String, byte[]>> records, String prefix) {
    List<Long> lateness = new ArrayList<>();
    for (ConsumerRecord<String, byte[]> record : records) {
      TaskCompletedEvent event = AxJson.read(record.value(), TaskCompletedEvent.class);
      if (event.taskId().startsWith(prefix)) {
        assertThat(event.status())
            .as("status of %s", event.instanceId())
            .isEqualTo(InstanceStatus.SUCCESS);
        lateness.add(event.startedAtMs() - event.dueAtMs());
      }
    }
    return lateness;
  }

  /** Stores a task of {@code group} whose instance is DISPATCHED now. */
  private String dispatchedIn(
      String taskId,
      String group,
      ExecutorSpec executor,
      Duration timeout,
      Map<String, String> params) {
    long dueAtMs = runtime.clock().millis() + (seq++);
    TaskSpec spec =
        TestTasks.spec(
            taskId,
            group,
            Trigger.Once.after(Duration.ZERO),
            executor,
            timeout,
            RetryPolicy.DEFAULT,
            params);
    new TaskStore(runtime.dataSource())
        .create(List.of(new NewTask(spec, "trace-" + taskId, dueAtMs)), "test", dueAtMs);
    String instanceId = InstanceIds.of(taskId, dueAtMs);
    assertThat(runtime.markDispatchedAsLeader("test-ticker", List.of(instanceId), dueAtMs))
        .hasSize(1);
    return instanceId;
  }

  /**
   * Stores one task per id in {@code taskIds} (group default, a 10 s timeout) in one transaction,
   * each instance DISPATCHED now and due a millisecond after the previous one: what {@link
   * #dispatched} does for one, in two transactions instead of two per task.
   */
  private List<String> dispatchedAll(List<String> taskIds, ExecutorSpec executor) {
    return dispatchedAll(taskIds, "default", executor, Duration.ofSeconds(10));
  }

  /** Like {@link #dispatchedAll(List, ExecutorSpec)}, in {@code group}, with {@code timeout}. */
  private List<String> dispatchedAll(
      List<String> taskIds, String group, ExecutorSpec executor, Duration timeout) {
    long nowMs = runtime.clock().millis();
    List<NewTask> tasks = new ArrayList<>();
    List<String> instanceIds = new ArrayList<>();
    for (String taskId : taskIds) {
      long dueAtMs = nowMs + (seq++);
      TaskSpec spec =
          TestTasks.spec(
              taskId,
              group,
              Trigger.Once.after(Duration.ZERO),
              executor,
              timeout,
              RetryPolicy.DEFAULT,
              Map.of());
      tasks.add(new NewTask(spec, "trace-" + taskId, dueAtMs));
      instanceIds.add(InstanceIds.of(taskId, dueAtMs));
    }
    new TaskStore(runtime.dataSource()).create(tasks, "test", nowMs);
    assertThat(runtime.markDispatchedAsLeader("test-ticker", instanceIds, nowMs + seq))
        .hasSize(instanceIds.size());
    return instanceIds;
  }

  private void emitDue(String instanceId, Integer partition) throws Exception {
    emitDue(instanceId, partition, 0);
  }

  private void emitDue(String instanceId, Integer partition, long epoch) throws Exception {
    sendDue(instanceId, partition, epoch).get();
  }

  /** Emits the due events of {@code instanceIds}, in order, and waits until all are sent. */
  private void emitAllDue(List<String> instanceIds) throws Exception {
    List<Future<RecordMetadata>> sends = new ArrayList<>();
    for (String id : instanceIds) {
      sends.add(sendDue(id, null, 0));
    }
    for (Future<RecordMetadata> send : sends) {
      send.get();
    }
  }

  /** Sends the due event of {@code instanceId}; the caller awaits the future. */
  private Future<RecordMetadata> sendDue(String instanceId, Integer partition, long epoch) {
    String taskId = instanceId.substring(0, instanceId.lastIndexOf('@'));
    long dueAtMs = Long.parseLong(instanceId.substring(instanceId.lastIndexOf('@') + 1));
    TaskDueEvent event =
        TestTasks.dueEvent(taskId, instanceId, dueAtMs, epoch, dueAtMs, "trace-" + taskId, null);
    return producer.send(
        new ProducerRecord<>(runtime.topics().due(), partition, taskId, AxJson.write(event)));
  }

  private InstanceStatus statusOf(String instanceId) {
    return new InstanceStore(runtime.dataSource()).find(instanceId).orElseThrow().status();
  }

  /** The epoch of the newest ticker lease: what due events of the current leader carry. */
  private long newestTickerEpoch() {
    return new LeaseStore(runtime.dataSource()).newestEpoch(LeaseFence.TICKER);
  }

  private InstanceRow awaitStatus(String instanceId, InstanceStatus status) {
    InstanceStore instances = new InstanceStore(runtime.dataSource());
    // No first delay: a test awaits many instances that mostly have their status already.
    await()
        .pollDelay(Duration.ZERO)
        .atMost(DEADLINE)
        .until(() -> instances.find(instanceId).map(InstanceRow::status).orElse(null) == status);
    return instances.find(instanceId).orElseThrow();
  }

  @Test
  void twoDispatchersRacingForTheSameInstancesRunEachOnce(AxTestEnv env) throws Exception {
    open(env, Map.of());
    dispatcher("disp-a");
    dispatcher("disp-b");
    runtime.awaitGroupsAssigned(2, "dispatcher");
    List<String> taskIds = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      taskIds.add("race-" + i);
    }
    List<String> ids = dispatchedAll(taskIds, ExecutorSpec.inProcess("count"));
    // Every event on every partition: both dispatchers see each instance, some see it twice.
    List<Future<RecordMetadata>> sends = new ArrayList<>();
    for (String id : ids) {
      for (int partition = 0; partition < TestRuntime.PARTITIONS; partition++) {
        sends.add(sendDue(id, partition, 0));
      }
    }
    for (Future<RecordMetadata> send : sends) {
      send.get(); // all sent before the completions are counted
    }

    try (TopicReader completed =
        new TopicReader(runtime.bootstrapServers(), runtime.topics().completed())) {
      await().atMost(DEADLINE).until(() -> completed.poll().size() >= ids.size());
      for (String id : ids) {
        awaitStatus(id, InstanceStatus.SUCCESS);
      }
      assertThat(completed.poll()).hasSize(ids.size());
    }
    for (String id : ids) {
      assertThat(CountingExecutor.RUNS.get(id)).as("runs of %s", id).isEqualTo(1);
      assertThat(StatusPath.of(runtime.dataSource(), id))
          .containsExactlyElementsOf(StatusPath.RAN_ONCE_AND_SUCCEEDED);
    }
  }

  @Test
  void aFailingHttpTargetEndsFailedWithTheErrorRecorded(AxTestEnv env) throws Exception {
    open(env, Map.of("AX_HTTP_ALLOWED_HOSTS", "127.0.0.1"));
    Map<String, String> seenHeaders = new ConcurrentHashMap<>();
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/fail",
        exchange -> {
          seenHeaders.put("idempotency", exchange.getRequestHeaders().getFirst("Idempotency-Key"));
          seenHeaders.put("trace", exchange.getRequestHeaders().getFirst("X-AX-Trace-Id"));
          seenHeaders.put("method", exchange.getRequestMethod());
          byte[] body = "boom: database on fire".getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(500, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    closeables.add(() -> server.stop(0));
    dispatcher("disp-1");
    URI url = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/fail");
    String id =
        dispatched(
            "http-fail", ExecutorSpec.http(url, "POST", Map.of(), "{}"), Duration.ofSeconds(10));

    emitDue(id, null);

    // FAILED, and in the same transaction RETRYING: the default policy allows three retries.
    InstanceRow row = awaitStatus(id, InstanceStatus.RETRYING);
    assertThat(row.lastError()).isEqualTo("HTTP 500: boom: database on fire");
    assertThat(seenHeaders)
        .containsEntry("idempotency", id)
        .containsEntry("trace", "trace-http-fail")
        .containsEntry("method", "POST");
    try (TopicReader completed =
        new TopicReader(runtime.bootstrapServers(), runtime.topics().completed())) {
      await().atMost(DEADLINE).until(() -> !completed.poll().isEmpty());
      ConsumerRecord<String, byte[]> record = completed.poll().get(0);
      TaskCompletedEvent event = AxJson.read(record.value(), TaskCompletedEvent.class);
      assertThat(event.status()).isEqualTo(InstanceStatus.FAILED);
      assertThat(event.error()).contains("HTTP 500");
      assertThat(event.attempt()).isEqualTo(1);
      assertThat(event.instanceStatus()).isEqualTo(InstanceStatus.RETRYING);
      assertThat(record.key()).isEqualTo("http-fail");
    }
  }

  @Test
  void aShellTaskRunsAScriptFromTheConfiguredDirectory(
      AxTestEnv env, @org.junit.jupiter.api.io.TempDir java.nio.file.Path scripts)
      throws Exception {
    java.nio.file.Path script = scripts.resolve("hello.sh");
    java.nio.file.Files.writeString(script, "#!/bin/sh\necho \"$1\" > \"$AX_PARAM_OUT\"\n");
    script.toFile().setExecutable(true);
    java.nio.file.Path out = scripts.resolve("out.txt");
    open(env, Map.of("AX_SHELL_SCRIPT_DIR", scripts.toString()));
    dispatcher("disp-1");
    long dueAtMs = runtime.clock().millis();
    TaskSpec spec =
        TestTasks.spec(
            "shell",
            "default",
            Trigger.Once.after(Duration.ZERO),
            ExecutorSpec.shell("hello.sh", List.of("a; touch pwned")),
            Duration.ofSeconds(10),
            RetryPolicy.DEFAULT,
            Map.of("out", out.toString()));
    new TaskStore(runtime.dataSource())
        .create(List.of(new NewTask(spec, "trace-shell", dueAtMs)), "test", dueAtMs);
    String id = InstanceIds.of("shell", dueAtMs);
    runtime.markDispatchedAsLeader("test-ticker", List.of(id), dueAtMs);

    emitDue(id, null);

    awaitStatus(id, InstanceStatus.SUCCESS);
    assertThat(java.nio.file.Files.readString(out).trim()).isEqualTo("a; touch pwned");
    assertThat(scripts.resolve("pwned")).doesNotExist();
  }

  @WallClock
  @Test
  void aGroupOfSlowTasksFillingItsPoolDoesNotDelayAnotherGroup(AxTestEnv env) throws Exception {
    open(env, Map.of("AX_DISPATCHER_THREADS", "2", "AX_DISPATCHER_QUEUE", "50"));
    dispatcher("disp-1");
    runtime.awaitGroupsAssigned(1, "dispatcher");
    // Blocked until the end of the test: the group's pool stays full for as long as it runs.
    List<String> slow = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      slow.add(
          dispatchedIn(
              "slow-" + i,
              "slow",
              ExecutorSpec.inProcess("block"),
              Duration.ofSeconds(30),
              Map.of()));
      emitDue(slow.get(i), null);
    }
    try {
      fastGroupStaysOnTimeBesideAFullSlowGroup();
    } finally {
      slow.forEach(BlockingExecutor::release); // so that the stop at teardown need not wait
    }
  }

  private void fastGroupStaysOnTimeBesideAFullSlowGroup() throws Exception {
    InstanceStore instances = new InstanceStore(runtime.dataSource());
    await()
        .atMost(DEADLINE)
        .until(() -> instances.countByStatus().getOrDefault(InstanceStatus.RUNNING, 0L) >= 2);

    List<String> fast = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      fast.add(emitQuick("fast-" + i, "fast"));
    }

    try (TopicReader completed =
        new TopicReader(runtime.bootstrapServers(), runtime.topics().completed())) {
      await()
          .atMost(DEADLINE)
          .until(
              () ->
                  completed.poll().stream().filter(r -> r.key().startsWith("fast-")).count()
                      >= fast.size());
      List<Long> lateness = successfulStartLateness(completed.poll(), "fast-");
      System.out.println(
          "Bulkhead test: fast-group start lateness while the slow group is full: " + lateness);
      assertThat(lateness).allSatisfy(ms -> assertThat(ms).isBetween(0L, 500L));
    }
    assertThat(instances.countByStatus().getOrDefault(InstanceStatus.SUCCESS, 0L))
        .as("the slow tasks are still running")
        .isEqualTo(fast.size());
  }

  @WallClock
  @Test
  void aStalledGroupFloodingThePartitionsShedsItsBacklogAndAnotherGroupStaysOnTime(AxTestEnv env)
      throws Exception {
    // A pool of 2 + 50 and a poll of 52: the slow group's first 52 fill its pool, the next 52
    // fill the hold, and without shedding every partition would pause until it drained.
    open(
        env,
        Map.of(
            "AX_DISPATCHER_THREADS", "2",
            "AX_DISPATCHER_QUEUE", "50",
            "AX_DISPATCHER_HOLD_FOR", "500ms",
            "AX_SHUTDOWN_GRACE", "0s"));
    StageContext context = dispatcherContext("disp-1");
    runtime.awaitGroupsAssigned(1, "dispatcher");
    int slowCount = 400;
    List<String> slowTaskIds = new ArrayList<>();
    for (int i = 0; i < slowCount; i++) {
      slowTaskIds.add("stalled-" + i);
    }
    List<String> slow =
        dispatchedAll(
            slowTaskIds, "stalled", ExecutorSpec.inProcess("block"), Duration.ofSeconds(60));
    emitAllDue(slow.subList(0, 200));
    await()
        .atMost(DEADLINE)
        .until(() -> context.meters().counter("ax.dispatcher.shed.events").count() > 0);

    // More of the stalled group keeps arriving, interleaved with another group's tasks.
    List<String> fast = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      emitAllDue(slow.subList(200 + i * 10, 210 + i * 10));
      fast.add(emitQuick("on-time-" + i, "on-time"));
    }

    try (TopicReader completed =
        new TopicReader(runtime.bootstrapServers(), runtime.topics().completed())) {
      await().atMost(DEADLINE).until(() -> completed.poll().size() >= fast.size());
      List<ConsumerRecord<String, byte[]>> records = completed.poll();
      assertThat(records).allSatisfy(r -> assertThat(r.key()).startsWith("on-time-"));
      List<Long> lateness = successfulStartLateness(records, "on-time-");
      System.out.println(
          "Shedding test: on-time group start lateness beside a stalled, flooding group: "
              + lateness);
      assertThat(lateness)
          .hasSize(fast.size())
          .allSatisfy(ms -> assertThat(ms).isBetween(0L, 500L));
    }
    // Nothing of the stalled group is lost: what its pool did not take is still DISPATCHED, for
    // the reaper to emit again; nothing ran twice.
    InstanceStore instances = new InstanceStore(runtime.dataSource());
    Map<InstanceStatus, Long> slowStatuses = new java.util.EnumMap<>(InstanceStatus.class);
    for (String id : slow) {
      slowStatuses.merge(instances.find(id).orElseThrow().status(), 1L, Long::sum);
    }
    assertThat(slowStatuses.keySet())
        .containsOnly(InstanceStatus.RUNNING, InstanceStatus.DISPATCHED);
    assertThat(slowStatuses.get(InstanceStatus.RUNNING)).as("claimed: its pool").isEqualTo(52L);
    assertThat(context.meters().counter("ax.dispatcher.shed.events").count())
        .as("shed, beside those still held")
        .isPositive()
        .isLessThanOrEqualTo(slowCount - 52);
  }

  @Test
  void aDueEventFromAnOlderEpochThanTheNewestSeenIsDroppedAndCounted(AxTestEnv env)
      throws Exception {
    open(env, Map.of());
    StageContext context = dispatcherContext("disp-1");
    String current = dispatchedQuick("current");
    String stale = dispatchedQuick("stale");

    long epoch = newestTickerEpoch();

    emitDue(current, 0, epoch);
    awaitStatus(current, InstanceStatus.SUCCESS);
    emitDue(stale, 0, epoch - 1);
    String after = dispatchedQuick("after");
    emitDue(after, 0, epoch); // same partition, behind the stale one

    awaitStatus(after, InstanceStatus.SUCCESS);
    assertThat(statusOf(stale))
        .as("left for the new leader to emit again")
        .isEqualTo(InstanceStatus.DISPATCHED);
    assertThat(context.meters().counter("ax.dispatcher.stale.epoch.events").count()).isEqualTo(1.0);
  }

  @Test
  void aDueEventFromAnEpochNoLeaderHadIsIgnoredAndDoesNotMakeRealOnesStale(AxTestEnv env)
      throws Exception {
    open(env, Map.of());
    StageContext context = dispatcherContext("disp-1");
    String forged = dispatchedQuick("forged");
    String real = dispatchedQuick("real");
    long epoch = newestTickerEpoch();

    emitDue(forged, 0, Long.MAX_VALUE);
    emitDue(real, 0, epoch); // same partition, behind the forged one

    awaitStatus(real, InstanceStatus.SUCCESS);
    assertThat(statusOf(forged))
        .as("a forged epoch claims nothing")
        .isEqualTo(InstanceStatus.DISPATCHED);
    assertThat(
            context
                .meters()
                .counter("ax.records.unreadable", "stage", "dispatcher", "event", "TaskDueEvent")
                .count())
        .isEqualTo(1.0);
    assertThat(context.meters().counter("ax.dispatcher.stale.epoch.events").count()).isZero();
  }

  @Test
  void aHostOffTheAllowListIsNeverCalled(AxTestEnv env) throws Exception {
    open(env, Map.of("AX_HTTP_ALLOWED_HOSTS", "127.0.0.1"));
    dispatcher("disp-1");
    String id =
        dispatched(
            "evil",
            ExecutorSpec.http(URI.create("http://169.254.169.254/latest"), "GET", Map.of(), null),
            Duration.ofSeconds(5));

    emitDue(id, null);

    assertThat(awaitStatus(id, InstanceStatus.DEAD).lastError())
        .as("a refusal is not retried")
        .contains("not on the HTTP allow-list");
  }

  @Test
  void aTaskThatOverrunsItsTimeoutIsInterruptedAndEndsTimeoutAndThePoolStaysHealthy(AxTestEnv env)
      throws Exception {
    open(env, Map.of("AX_DISPATCHER_THREADS", "1", "AX_DISPATCHER_QUEUE", "1"));
    dispatcher("disp-1");
    String slow = dispatched("slow", ExecutorSpec.inProcess("block"), Duration.ofMillis(500));
    String unknown =
        dispatched("unknown", ExecutorSpec.inProcess("no-such-handler"), Duration.ofSeconds(5));

    emitDue(slow, null);
    emitDue(unknown, null);

    InstanceRow row = awaitStatus(slow, InstanceStatus.RETRYING);
    assertThat(row.lastError()).isEqualTo("timed out after 500 ms");
    await().atMost(DEADLINE).until(() -> BlockingExecutor.INTERRUPTED.contains(slow));
    assertThat(awaitStatus(unknown, InstanceStatus.DEAD).lastError())
        .contains("no executor installed");
    // The single worker thread was freed by the interrupt: the next task runs.
    String next = dispatchedQuick("after-timeout");
    emitDue(next, null);
    awaitStatus(next, InstanceStatus.SUCCESS);
  }

  @Test
  void aRunGoingOnThroughAGracefulStopKeepsItsLeaseAndIsRecorded(AxTestEnv env) throws Exception {
    open(env, Map.of("AX_DISPATCHER_LEASE", "5s", "AX_SHUTDOWN_GRACE", "30s"));
    DispatcherStage stage = dispatcher("disp-stopping");
    String id = dispatched("long-run", ExecutorSpec.inProcess("block"), Duration.ofSeconds(60));
    emitDue(id, null);
    await().atMost(DEADLINE).until(() -> BlockingExecutor.STARTED.contains(id));

    long stopAtMs = runtime.clock().millis();
    CompletableFuture<Void> stopped = CompletableFuture.runAsync(stage::close);
    try {
      // A lease ending later than one lease after the stop began was renewed during the grace:
      // else it would lapse while the run goes on, and the reaper would start it again elsewhere.
      await()
          .atMost(DEADLINE)
          .untilAsserted(
              () ->
                  assertThat(leaseUntilMs(id))
                      .as("lease renewed while the stage stops")
                      .isGreaterThan(stopAtMs + 5_000));
      assertThat(stopped).as("still in its grace period").isNotDone();
    } finally {
      BlockingExecutor.release(id); // also when the wait failed: the stop must end before teardown
      stopped.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
    }
    assertThat(statusOf(id))
        .as("its outcome recorded before the stop ended")
        .isEqualTo(InstanceStatus.SUCCESS);
    assertThat(BlockingExecutor.INTERRUPTED).doesNotContain(id);
  }

  @Test
  void attemptsStillQueuedWhenTheGraceRunsOutAreReleasedAndLaterStartAsTheSameAttempt(AxTestEnv env)
      throws Exception {
    open(
        env,
        Map.of(
            "AX_DISPATCHER_THREADS",
            "1",
            "AX_DISPATCHER_QUEUE",
            "2",
            "AX_SHUTDOWN_GRACE",
            "500ms"));
    DispatcherStage stage = dispatcher("disp-leaving");
    String running = dispatched("busy", ExecutorSpec.inProcess("block"), Duration.ofSeconds(60));
    String queued1 =
        dispatched("waiting-1", ExecutorSpec.inProcess("block"), Duration.ofSeconds(60));
    String queued2 =
        dispatched("waiting-2", ExecutorSpec.inProcess("block"), Duration.ofSeconds(60));
    for (String id : List.of(running, queued1, queued2)) {
      emitDue(id, 0); // one partition: claimed in order, the first runs, the others queue
    }
    await().atMost(DEADLINE).until(() -> BlockingExecutor.STARTED.contains(running));
    InstanceStore instances = new InstanceStore(runtime.dataSource());
    await()
        .atMost(DEADLINE)
        .until(
            () ->
                instances.find(queued1).orElseThrow().status() == InstanceStatus.RUNNING
                    && instances.find(queued2).orElseThrow().status() == InstanceStatus.RUNNING);

    stage.close(); // the running attempt outlasts the 500 ms grace; the queued two never start

    for (String id : List.of(queued1, queued2)) {
      InstanceRow row = instances.find(id).orElseThrow();
      assertThat(row.status()).as("%s released", id).isEqualTo(InstanceStatus.DISPATCHED);
      assertThat(row.attempt()).as("%s: its claim undone", id).isZero();
      assertThat(row.owner()).isNull();
    }
    assertThat(BlockingExecutor.STARTED).doesNotContain(queued1, queued2);
    assertThat(releaseAuditedAttempt(queued1))
        .as("the release's audit row names the attempt released")
        .isEqualTo(1);
    assertThat(instances.find(running).orElseThrow().status())
        .as("started, so left RUNNING for the reaper")
        .isEqualTo(InstanceStatus.RUNNING);

    // Another dispatcher gets them again (the reaper would emit them): the same attempt, 1.
    dispatcher("disp-next");
    for (String id : List.of(queued1, queued2)) {
      BlockingExecutor.release(id);
      emitDue(id, null);
    }
    for (String id : List.of(queued1, queued2)) {
      InstanceRow row = awaitStatus(id, InstanceStatus.SUCCESS);
      assertThat(row.attempt()).as("%s ran as its first attempt", id).isEqualTo(1);
    }
  }

  /**
   * Behind a run that outlasts a lease, a claimed attempt neither times out in the queue (its
   * timeout, 1 s, counts from its start) nor holds its claim for ever: one lease after its claim it
   * goes back to DISPATCHED as the same attempt, never having started, while the run ahead goes on.
   */
  @Test
  void anAttemptQueuedForALeaseIsGivenBackAsTheSameAttemptNotTimedOut(AxTestEnv env)
      throws Exception {
    open(
        env,
        Map.of(
            "AX_DISPATCHER_THREADS", "1", "AX_DISPATCHER_QUEUE", "2", "AX_DISPATCHER_LEASE", "5s"));
    dispatcher("disp-busy");
    String running = dispatched("ahead", ExecutorSpec.inProcess("block"), Duration.ofSeconds(60));
    String queued = dispatched("behind", ExecutorSpec.inProcess("block"), Duration.ofSeconds(1));
    emitDue(running, 0); // one partition: claimed in order, the first runs, the other queues
    emitDue(queued, 0);
    await().atMost(DEADLINE).until(() -> BlockingExecutor.STARTED.contains(running));
    InstanceStore instances = new InstanceStore(runtime.dataSource());
    await()
        .atMost(DEADLINE)
        .until(() -> instances.find(queued).orElseThrow().status() == InstanceStatus.RUNNING);

    InstanceRow row = awaitStatus(queued, InstanceStatus.DISPATCHED);

    assertThat(row.attempt()).as("its claim undone: the next claim is attempt 1 again").isZero();
    assertThat(row.owner()).isNull();
    assertThat(releaseAuditedAttempt(queued)).isEqualTo(1);
    assertThat(BlockingExecutor.STARTED).doesNotContain(queued);
    assertThat(instances.find(running).orElseThrow().status())
        .as("the run ahead goes on, its lease renewed")
        .isEqualTo(InstanceStatus.RUNNING);
    BlockingExecutor.release(running);
    awaitStatus(running, InstanceStatus.SUCCESS);
  }

  private int releaseAuditedAttempt(String instanceId) throws Exception {
    try (Connection connection = runtime.dataSource().getConnection();
        PreparedStatement select =
            connection.prepareStatement(
                "SELECT attempt FROM ax_instance_log WHERE instance_id = ? AND reason = ?"
                    + " AND from_status = 'RUNNING' AND to_status = 'DISPATCHED'")) {
      select.setString(1, instanceId);
      select.setString(2, ClaimStore.RELEASED_UNSTARTED);
      try (ResultSet rows = select.executeQuery()) {
        assertThat(rows.next()).as("release audited for %s", instanceId).isTrue();
        return rows.getInt(1);
      }
    }
  }

  private long leaseUntilMs(String instanceId) throws Exception {
    try (Connection connection = runtime.dataSource().getConnection();
        PreparedStatement select =
            connection.prepareStatement(
                "SELECT lease_until_ms FROM ax_instance WHERE instance_id = ?")) {
      select.setString(1, instanceId);
      try (ResultSet rows = select.executeQuery()) {
        assertThat(rows.next()).as("row of %s", instanceId).isTrue();
        return rows.getLong(1);
      }
    }
  }
}
