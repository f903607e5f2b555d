package dev.ax.systemtest;

import static dev.ax.systemtest.TaskBody.dependency;
import static dev.ax.systemtest.TaskBody.fixedRate;
import static dev.ax.systemtest.TaskBody.noop;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.contract.TriggerCommand;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TopicReader;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import dev.ax.resolver.ResolverConfig;
import dev.ax.resolver.ResolverMain;
import dev.ax.resolver.ResolverStage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The resolver killed with SIGKILL in the middle of a stream of flow runs: its successor restores
 * the joins from the changelog and, exactly once, every upstream success still yields one
 * downstream run and no flow run gets a second trigger.
 */
@ExtendWith(AxInfraExtension.class)
class ResolverCrashIT {

  /** Periods shorter than AX_MIN_INTERVAL's default (1 s) keep this test fast. */
  private static final Map<String, String> FAST_PERIODS = Map.of("AX_MIN_INTERVAL", "100ms");

  @TempDir Path victimState;
  @TempDir Path successorState;

  @Test
  void aKilledResolverLosesAndRepeatsNoTrigger(AxTestEnv env) throws Exception {
    Process victim = null;
    try (TestRuntime runtime = TestRuntime.open(env);
        RunningStages stages =
            RunningStages.on(runtime, "node-1").ingest(FAST_PERIODS).ticker().dispatcher();
        KafkaProducer<String, byte[]> producer = UserClients.producer(runtime);
        TopicReader completed = UserClients.completed(runtime);
        // Committed only: the killed resolver's open transaction is aborted, and a TRIGGER in it
        // was never a command.
        TopicReader commands =
            TopicReader.committedOnly(runtime.bootstrapServers(), runtime.topics().commands())) {
      victim =
          StageProcess.start(
              env,
              ResolverMain.class,
              "resolver-victim",
              Map.of("AX_RESOLVER_STATE_DIR", victimState.toString()));
      runtime.awaitGroupsAssigned(1, "ingest", "dispatcher", "resolver");

      Commands.send(producer, runtime, "up", noop(fixedRate(300)));
      TaskStore tasks = new TaskStore(runtime.dataSource());
      await().atMost(Duration.ofSeconds(30)).until(() -> tasks.find("up").isPresent());
      Commands.send(producer, runtime, "down", noop(dependency("up")));
      await().atMost(Duration.ofSeconds(30)).until(() -> tasks.find("down").isPresent());
      // Upstream successes before the graph reached the resolver have nobody waiting for them.
      long graphKnownAfterMs = runtime.clock().millis() + 2_000;

      InstanceStore instances = new InstanceStore(runtime.dataSource());
      await().atMost(Duration.ofSeconds(60)).until(() -> instances.findByTask("down").size() >= 8);
      victim.destroyForcibly(); // SIGKILL, in the middle of the stream of flow runs
      assertThat(victim.waitFor()).isNotZero();
      int beforeKill = instances.findByTask("down").size();

      try (ResolverStage successor =
          new ResolverStage(
                  runtime.context("resolver-successor"),
                  ResolverConfig.from(
                      runtime.config(Map.of("AX_RESOLVER_STATE_DIR", successorState.toString()))))
              .start()) {
        await()
            .atMost(Duration.ofSeconds(90))
            .until(() -> instances.findByTask("down").size() >= beforeKill + 15);
        // The successor keeps running through the checks below: the successes they judge reach
        // back to 5 s before now, and it may still be working through the ones the kill left.
        assertNothingLostOrRepeated(
            runtime, instances, completed, commands, graphKnownAfterMs, beforeKill);
      }
    } finally {
      if (victim != null) {
        victim.destroyForcibly();
      }
    }
  }

  /**
   * Every upstream success finished between the graph reaching the resolver and 5 s before now has
   * exactly one committed TRIGGER and a downstream run.
   */
  private static void assertNothingLostOrRepeated(
      TestRuntime runtime,
      InstanceStore instances,
      TopicReader completed,
      TopicReader commands,
      long graphKnownAfterMs,
      int beforeKill) {
    // Every upstream success finished well before now has its downstream run. The readers
    // poll until they have caught up: an "up" event finished after the settled point (one task,
    // one partition, so every earlier one was read), and a TRIGGER for each settled success.
    long settledBeforeMs = runtime.clock().millis() - 5_000;
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> upstreamSuccesses(completed).anyMatch(e -> e.finishedAtMs() >= settledBeforeMs));
    Set<String> upstreamFlowRuns =
        upstreamSuccesses(completed)
            .filter(e -> e.finishedAtMs() > graphKnownAfterMs)
            .filter(e -> e.finishedAtMs() < settledBeforeMs)
            .map(TaskCompletedEvent::flowRunId)
            .collect(Collectors.toSet());
    Map<String, Integer> triggersByFlowRun = new HashMap<>();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              triggersByFlowRun.clear();
              triggersByFlowRun.putAll(triggersByFlowRun(commands));
              return triggersByFlowRun.keySet().containsAll(upstreamFlowRuns);
            });
    Set<String> downFlowRuns = new HashSet<>();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              downFlowRuns.clear();
              downFlowRuns.addAll(downstreamFlowRuns(instances)); // ids are per flow run
              assertThat(downFlowRuns).as("no upstream success lost").containsAll(upstreamFlowRuns);
            });
    System.out.printf(
        "Resolver crash: %d downstream runs before the kill, %d in all; %d settled upstream"
            + " successes%n",
        beforeKill, downFlowRuns.size(), upstreamFlowRuns.size());
    assertThat(triggersByFlowRun.values()).as("one committed TRIGGER per flow run").containsOnly(1);
    assertThat(triggersByFlowRun.keySet()).containsAll(upstreamFlowRuns);
  }

  private static Set<String> downstreamFlowRuns(InstanceStore instances) {
    return instances.findByTask("down").stream()
        .map(row -> row.instanceId().substring("down@".length()))
        .collect(Collectors.toSet());
  }

  private static Stream<TaskCompletedEvent> upstreamSuccesses(TopicReader completed) {
    return completed.poll().stream()
        .map(r -> AxJson.read(r.value(), TaskCompletedEvent.class))
        .filter(e -> e.taskId().equals("up") && e.status() == InstanceStatus.SUCCESS);
  }

  private static Map<String, Integer> triggersByFlowRun(TopicReader commands) {
    Map<String, Integer> triggers = new HashMap<>();
    for (ConsumerRecord<String, byte[]> record : commands.poll()) {
      String json = new String(record.value(), StandardCharsets.UTF_8);
      if (json.contains("\"TRIGGER\"")) {
        TriggerCommand trigger = AxJson.read(record.value(), TriggerCommand.class);
        triggers.merge(trigger.flowRunId(), 1, Integer::sum);
      }
    }
    return triggers;
  }
}
