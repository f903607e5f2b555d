package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.AuditLog;
import dev.ax.common.store.InstanceRow;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TopicReader;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * What the ITs of task commands drive: one node of ingest, ticker and dispatcher over a fresh
 * {@link TestRuntime}, whose consumer groups hold their partitions before {@link #start} returns;
 * the producer a user sends commands with; a reader of the rejected-commands topic from its
 * beginning; and the stores to check the outcome in.
 *
 * <p>{@link #close()} closes the clients, the stages and the runtime, last opened first; if opening
 * one fails, those already open are closed before the exception propagates.
 *
 * <p>Not thread-safe: started, driven and closed by the test's thread.
 */
final class OneNode implements AutoCloseable {

  private static final Duration FIRST_RUNS = Duration.ofSeconds(60);
  private static final Duration REACTION = Duration.ofSeconds(30);

  // Set once by start, which closes what it opened if any step fails.
  private TestRuntime runtime;
  private RunningStages stages;
  private KafkaProducer<String, byte[]> producer;
  private TopicReader rejected;
  private InstanceStore instances;
  private TaskStore tasks;

  private OneNode() {}

  /** The node with the runtime's configuration, its groups assigned. */
  static OneNode start(AxTestEnv env) throws Exception {
    return start(env, Map.of());
  }

  /** The node with {@code tickerSettings} on top of the runtime's configuration for its ticker. */
  static OneNode start(AxTestEnv env, Map<String, String> tickerSettings) throws Exception {
    OneNode node = new OneNode();
    try {
      node.runtime = TestRuntime.open(env);
      node.stages =
          RunningStages.on(node.runtime, "node-1").ingest().ticker(tickerSettings).dispatcher();
      node.producer = UserClients.producer(node.runtime);
      node.rejected = UserClients.rejected(node.runtime);
      node.runtime.awaitGroupsAssigned(1, "ingest", "dispatcher");
    } catch (Exception e) {
      try {
        node.close();
      } catch (Exception closeFailure) {
        e.addSuppressed(closeFailure);
      }
      throw e;
    }
    node.instances = new InstanceStore(node.runtime.dataSource());
    node.tasks = new TaskStore(node.runtime.dataSource());
    return node;
  }

  TestRuntime runtime() {
    return runtime;
  }

  InstanceStore instances() {
    return instances;
  }

  TaskStore tasks() {
    return tasks;
  }

  /** The reader of the rejected-commands topic, for a test that polls it itself. */
  TopicReader rejected() {
    return rejected;
  }

  /** {@link Commands#send}: a command of {@code taskId} with the fields of {@code body}. */
  void send(String taskId, String body) throws Exception {
    Commands.send(producer, runtime, taskId, body);
  }

  /** {@link Commands#sendJson}: {@code json} as it is, keyed by {@code key}. */
  void sendJson(String key, String json) throws Exception {
    Commands.sendJson(producer, runtime, key, json);
  }

  /** How many instances of {@code taskId} have succeeded. */
  long succeeded(String taskId) {
    return Commands.count(instances.findByTask(taskId), InstanceStatus.SUCCESS);
  }

  /** Waits up to a minute (first firings included) until {@code atLeast} runs have succeeded. */
  void awaitSucceeded(String taskId, long atLeast) {
    await().atMost(FIRST_RUNS).until(() -> succeeded(taskId) >= atLeast);
  }

  /** Waits up to 30 s until a run of {@code taskId} due after {@code dueAfterMs} has succeeded. */
  void awaitSucceededDueAfter(String taskId, long dueAfterMs) {
    await()
        .atMost(REACTION)
        .until(
            () ->
                instances.findByTask(taskId).stream()
                    .anyMatch(
                        r -> r.status() == InstanceStatus.SUCCESS && r.dueAtMs() > dueAfterMs));
  }

  /** Waits up to 30 s until task {@code taskId} is in {@code state} (e.g. "PAUSED"). */
  void awaitState(String taskId, String state) {
    await()
        .atMost(REACTION)
        .until(() -> tasks.find(taskId).orElseThrow().state().name(), state::equals);
  }

  /** The reasons of the rejections read so far, once there are {@code atLeast}, waiting 30 s. */
  List<String> awaitRejections(int atLeast) {
    return await()
        .atMost(REACTION)
        .until(() -> UserClients.reasons(rejected), all -> all.size() >= atLeast);
  }

  /**
   * Checks throughout {@code during} (and 2 s more at most) that every task of {@code paused} holds
   * its firings: at most the run under way at the pause succeeded since {@code succeededAtPause}
   * was taken, a PAUSED instance stands for the held firing, and none is SCHEDULED.
   */
  void assertHeldWhilePaused(
      Collection<String> paused, Map<String, Long> succeededAtPause, Duration during) {
    await()
        .during(during)
        .atMost(during.plusSeconds(2))
        .untilAsserted(
            () -> {
              for (String id : paused) {
                List<InstanceRow> rows = instances.findByTask(id);
                assertThat(Commands.count(rows, InstanceStatus.SUCCESS))
                    .as("%s ran while paused", id)
                    .isLessThanOrEqualTo(succeededAtPause.get(id) + 1); // one was running
                assertThat(rows)
                    .extracting(InstanceRow::status)
                    .as("%s while paused", id)
                    .contains(InstanceStatus.PAUSED)
                    .doesNotContain(InstanceStatus.SCHEDULED);
              }
            });
  }

  /**
   * After a CANCEL or DELETE of {@code taskId}: nothing of it is left to fire, and its pending
   * firing is CANCELLED with an audit row whose reason has each of {@code reasonParts}.
   *
   * @return the task's instances as they are now, for {@link #assertFiresNoMore}
   */
  List<InstanceRow> assertStopped(String taskId, String... reasonParts) {
    List<InstanceRow> atStop = instances.findByTask(taskId);
    assertThat(atStop)
        .extracting(InstanceRow::status)
        .doesNotContain(InstanceStatus.SCHEDULED, InstanceStatus.DISPATCHED)
        .contains(InstanceStatus.CANCELLED);
    InstanceRow pending =
        atStop.stream().filter(r -> r.status() == InstanceStatus.CANCELLED).findFirst().get();
    assertThat(new AuditLog(runtime.dataSource()).history(pending.instanceId()))
        .last()
        .satisfies(
            t -> {
              assertThat(t.to()).isEqualTo(InstanceStatus.CANCELLED);
              assertThat(t.reason()).contains(reasonParts);
            });
    return atStop;
  }

  /**
   * Over three more seconds, in which a cron firing every second would add rows, the instances of
   * {@code taskId} stay the {@code atStop} ones.
   */
  void assertFiresNoMore(String taskId, List<InstanceRow> atStop) {
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(5))
        .until(() -> instances.findByTask(taskId).size() == atStop.size());
  }

  @Override
  public void close() throws Exception {
    // Last opened first, each even if another failed; those never opened (null) are skipped.
    try (TestRuntime r = runtime;
        RunningStages s = stages;
        KafkaProducer<String, byte[]> p = producer;
        TopicReader t = rejected) {
      // nothing but the closing
    }
  }
}
