package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.cli.command.ExitCodes;
import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskDeadEvent;
import dev.ax.common.contract.TaskDueEvent;
import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.model.DeadLetterState;
import dev.ax.common.model.ExecutorSpec;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.RetryPolicy;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.stage.Switches;
import dev.ax.common.store.AfterFailure;
import dev.ax.common.store.InstanceStore;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.Outcome;
import dev.ax.common.store.SwitchStore;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TestTasks;
import dev.ax.common.testing.TopicReader;
import dev.ax.deadletter.DeadLetterConfig;
import dev.ax.deadletter.DeadLetterStage;
import dev.ax.deadletter.DeadLetterStore;
import dev.ax.dispatcher.store.ClaimStore;
import dev.ax.dispatcher.store.OutcomeStore;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code ax dlq} end to end against a real database and broker, bad input included. */
@ExtendWith(AxInfraExtension.class)
class DlqCommandIT {

  /** A task whose only attempt failed for good, recorded as the dispatcher would. */
  private static String deadInstance(TestRuntime runtime, String taskId) {
    long nowMs = runtime.clock().millis();
    TaskSpec spec =
        TestTasks.spec(
            taskId,
            "reports",
            Trigger.Once.after(Duration.ZERO),
            ExecutorSpec.inProcess("noop"),
            Duration.ofSeconds(5),
            new RetryPolicy(0, Duration.ofSeconds(1), Duration.ofSeconds(60), true),
            Map.of());
    new TaskStore(runtime.dataSource())
        .create(List.of(new NewTask(spec, "trace-" + taskId, nowMs)), "test", nowMs);
    String id = InstanceIds.of(taskId, nowMs);
    runtime.markDispatchedAsLeader("ticker", List.of(id), nowMs);
    InstanceStore instances = new InstanceStore(runtime.dataSource());
    ClaimStore claimStore = new ClaimStore(runtime.dataSource());
    OutcomeStore outcomeStore = new OutcomeStore(runtime.dataSource());
    claimStore.claim(List.of(id), "disp-1", nowMs + 60_000, nowMs);
    outcomeStore.recordOutcomes(
        List.of(
            new Outcome(
                id,
                taskId,
                1,
                InstanceStatus.FAILED,
                "boom",
                nowMs,
                new AfterFailure.Dead("retries exhausted"))),
        "disp-1",
        nowMs);
    return id;
  }

  @Test
  void dlqAndSwitchCommandsWorkEndToEndAndRefuseBadInput(AxTestEnv env) throws Exception {
    try (TestRuntime runtime = TestRuntime.open(env);
        DeadLetterStage stage =
            new DeadLetterStage(runtime.context("node-1"), DeadLetterConfig.from(runtime.config()))
                .start();
        KafkaProducer<String, byte[]> producer = KafkaClients.producer(runtime.kafka(), "test");
        TopicReader dueRetry =
            new TopicReader(runtime.bootstrapServers(), runtime.topics().dueRetry());
        CliRun.Target cli = CliRun.pointAt(env, runtime)) {
      for (String taskId : List.of("dlq-a", "dlq-b")) {
        String id = deadInstance(runtime, taskId);
        TaskDeadEvent event =
            new TaskDeadEvent(
                1,
                taskId,
                id,
                1,
                InstanceStatus.FAILED,
                "boom",
                "retries exhausted",
                "java.lang.IllegalStateException: boom\n\tat example.Job.run(Job.java:42)\n",
                "trace-" + taskId,
                "reports",
                runtime.clock().millis());
        producer
            .send(new ProducerRecord<>(runtime.topics().deadletter(), taskId, AxJson.write(event)))
            .get();
      }
      DeadLetterStore letters = new DeadLetterStore(runtime.dataSource());
      DeadLetterStore.Filter all = new DeadLetterStore.Filter(null, null, null, null, null);
      await().atMost(Duration.ofSeconds(30)).until(() -> letters.list(all, 10).size() == 2);
      long idA =
          letters.list(new DeadLetterStore.Filter("dlq-a", null, null, null, null), 1).get(0).id();
      long idB =
          letters.list(new DeadLetterStore.Filter("dlq-b", null, null, null, null), 1).get(0).id();

      CliRun list = CliRun.ax("dlq", "list");
      assertThat(list.okOut()).contains("dlq-a", "dlq-b", "reports", "boom", "2 dead letter(s)");
      assertThat(CliRun.ax("dlq", "list", "--task", "dlq-a", "--since", "1h").out())
          .contains("dlq-a")
          .doesNotContain("dlq-b")
          .contains("1 dead letter(s)");

      CliRun show = CliRun.ax("dlq", "show", Long.toString(idA));
      assertThat(show.okOut())
          .contains("instance    dlq-a@")
          .contains("retries exhausted")
          .contains("FAILED")
          .contains("\"taskId\" : \"dlq-a\"")
          .contains("at example.Job.run(Job.java:42)");

      // --json: the API's JSON, secrets masked the same way.
      JsonNode listed = AxJson.MAPPER.readTree(CliRun.ax("dlq", "list", "--json").okOut());
      assertThat(listed).hasSize(2);
      assertThat(listed.get(0).get("createdAt").asText()).endsWith("Z");
      JsonNode shownJson =
          AxJson.MAPPER.readTree(CliRun.ax("dlq", "show", Long.toString(idA), "--json").okOut());
      assertThat(shownJson.get("taskId").asText()).isEqualTo("dlq-a");
      assertThat(shownJson.get("lastStack").asText()).contains("at example.Job.run(Job.java:42)");
      assertThat(shownJson.get("attempts").isArray()).isTrue();

      CliRun replay = CliRun.ax("dlq", "replay", Long.toString(idA), "--reason", "fixed");
      assertThat(replay.exitCode()).as(replay.out() + replay.err()).isZero();
      assertThat(replay.out()).contains("dead letter " + idA + ": replayed");
      String instanceA = letters.find(idA).orElseThrow().instanceId();
      assertThat(new InstanceStore(runtime.dataSource()).find(instanceA).orElseThrow().status())
          .isEqualTo(InstanceStatus.DISPATCHED);
      await().atMost(Duration.ofSeconds(30)).until(() -> !dueRetry.poll().isEmpty());
      assertThat(AxJson.read(dueRetry.poll().get(0).value(), TaskDueEvent.class).instanceId())
          .isEqualTo(instanceA);
      CliRun again = CliRun.ax("dlq", "replay", Long.toString(idA));
      assertThat(again.exitCode()).isEqualTo(ExitCodes.FAILED);
      assertThat(again.out()).contains("not open");

      // The replayed run dies too: the same letter opens again and can be replayed again.
      long nowMs = runtime.clock().millis();
      InstanceStore instances = new InstanceStore(runtime.dataSource());
      ClaimStore claimStore = new ClaimStore(runtime.dataSource());
      OutcomeStore outcomeStore = new OutcomeStore(runtime.dataSource());
      assertThat(claimStore.claim(List.of(instanceA), "disp-1", nowMs + 60_000, nowMs)).hasSize(1);
      outcomeStore.recordOutcomes(
          List.of(
              new Outcome(
                  instanceA,
                  "dlq-a",
                  2,
                  InstanceStatus.FAILED,
                  "boom again",
                  nowMs,
                  new AfterFailure.Dead("retries exhausted"))),
          "disp-1",
          nowMs);
      TaskDeadEvent second =
          new TaskDeadEvent(
              1,
              "dlq-a",
              instanceA,
              2,
              InstanceStatus.FAILED,
              "boom again",
              "retries exhausted",
              null,
              "trace-dlq-a",
              "reports",
              nowMs);
      producer
          .send(new ProducerRecord<>(runtime.topics().deadletter(), "dlq-a", AxJson.write(second)))
          .get();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> letters.find(idA).orElseThrow().state() == DeadLetterState.OPEN);
      assertThat(letters.find(idA).orElseThrow().lastError()).isEqualTo("boom again");
      assertThat(letters.find(idA).orElseThrow().stateReason())
          .startsWith("dead again after a replay");
      assertThat(CliRun.ax("dlq", "replay", Long.toString(idA)).exitCode()).isZero();

      CliRun discard = CliRun.ax("dlq", "discard", Long.toString(idB), "--reason", "obsolete");
      assertThat(discard.exitCode()).as(discard.err()).isZero();
      assertThat(letters.find(idB).orElseThrow().state()).isEqualTo(DeadLetterState.DISCARDED);
      assertThat(letters.find(idB).orElseThrow().stateReason()).startsWith("obsolete");

      // Bad input: a clear message and a non-zero exit.
      CliRun unknown = CliRun.ax("dlq", "show", "999999");
      assertThat(unknown.exitCode()).isEqualTo(ExitCodes.FAILED);
      assertThat(unknown.err()).contains("no dead letter 999999");
      CliRun badFrom = CliRun.ax("dlq", "list", "--from", "yesterday");
      assertThat(badFrom.exitCode()).isEqualTo(ExitCodes.BAD_CONFIG);
      assertThat(badFrom.err()).contains("--from must be an ISO-8601 instant");
      CliRun badState = CliRun.ax("dlq", "list", "--state", "ZOMBIE");
      assertThat(badState.exitCode()).isEqualTo(ExitCodes.BAD_CONFIG);
      assertThat(badState.err()).contains("--state must be OPEN, REPLAYED or DISCARDED");
      CliRun noReason = CliRun.ax("dlq", "discard", Long.toString(idB));
      assertThat(noReason.exitCode()).isEqualTo(ExitCodes.BAD_CONFIG);
      assertThat(noReason.err()).contains("--reason");
      CliRun discardAgain = CliRun.ax("dlq", "discard", Long.toString(idB), "--reason", "twice");
      assertThat(discardAgain.exitCode()).isEqualTo(ExitCodes.FAILED);
      assertThat(discardAgain.err()).contains("not open");
      CliRun notANumber = CliRun.ax("dlq", "show", "abc");
      assertThat(notANumber.exitCode()).isEqualTo(ExitCodes.BAD_CONFIG);

      // The retries switch, set through the CLI and read the way every stage reads it.
      CliRun off = CliRun.ax("switch", "retries", "off");
      assertThat(off.okOut()).contains("switch retries set to off");
      try (Switches switches =
          new Switches(
                  new SwitchStore(runtime.dataSource()),
                  runtime.clock(),
                  Duration.ofSeconds(1),
                  "test",
                  Set.of(Switches.RETRIES))
              .start()) {
        assertThat(switches.retriesEnabled()).isFalse();
      }
      assertThat(CliRun.ax("switch", "retries", "off").out()).contains("was already off");
      assertThat(CliRun.ax("switch", "retries", "on").exitCode()).isZero();
      assertThat(CliRun.ax("switch").out()).contains("retries").contains("on");
      JsonNode switchesJson = AxJson.MAPPER.readTree(CliRun.ax("switch", "--json").okOut());
      assertThat(switchesJson.get(2).get("name").asText()).isEqualTo("retries");
      assertThat(switchesJson.get(2).get("version").asLong()).isEqualTo(2);
      CliRun badValue = CliRun.ax("switch", "retries", "maybe");
      assertThat(badValue.exitCode()).isEqualTo(ExitCodes.BAD_CONFIG);
      assertThat(badValue.err()).contains("takes one of [on, off]");
      CliRun badName = CliRun.ax("switch", "everything", "off");
      assertThat(badName.exitCode()).isEqualTo(ExitCodes.BAD_CONFIG);
      assertThat(badName.err()).contains("unknown switch 'everything'");
      // A group's dispatch switch: set, listed, and refused for a name no group can have.
      assertThat(CliRun.ax("switch", "dispatch.reports", "off").out())
          .contains("switch dispatch.reports set to off");
      assertThat(CliRun.ax("switch").out())
          .contains("dispatch.reports", "off", "intake", "dispatch");
      assertThat(CliRun.ax("switch", "dispatch.no group", "off").exitCode())
          .isEqualTo(ExitCodes.BAD_CONFIG);
      assertThat(CliRun.ax("switch", "dispatch.reports", "on").exitCode()).isZero();
    }
  }
}
