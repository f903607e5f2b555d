package dev.ax.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.common.contract.CommandReader;
import dev.ax.common.contract.IntakeLimits;
import dev.ax.common.kafka.Topics;
import dev.ax.common.model.Namespace;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.store.StoreException;
import dev.ax.common.testing.TestTasks;
import dev.ax.common.time.SettableClock;
import dev.ax.ingest.InMemoryIngestPort.Rejected;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** The ingest loop over an in-memory port and a settable clock: no broker, no database. */
class IngestLoopTest {

  private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
  private static final long T = T0.toEpochMilli();

  private final SettableClock clock = new SettableClock(T0);
  private final InMemoryIngestPort port = new InMemoryIngestPort();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final IngestLoop loop =
      new IngestLoop(
          clock,
          new CommandReader(Duration.ofSeconds(30), IntakeLimits.DEFAULTS, clock),
          new NamespaceIntake(
              new Topics(""), new KnownNamespaces(() -> List.of(new Namespace("billing")), clock)),
          new CreatePlanner(new FireTimes()),
          port,
          Duration.ofMinutes(1),
          new IngestCounters(meters),
          "ax.task.commands.rejected");
  private final List<ConsumerRecord<String, byte[]>> batch = new ArrayList<>();

  private void read(String key, String json) {
    readFrom("ax.task.commands", key, json);
  }

  private void readFrom(String topic, String key, String json) {
    batch.add(
        new ConsumerRecord<>(topic, 0, batch.size(), key, json.getBytes(StandardCharsets.UTF_8)));
  }

  private static String once(String taskId, long delayMs) {
    return """
        {"v":1,"taskId":"%s","trigger":{"type":"ONCE","delayMs":%d},
         "executor":{"type":"IN_PROCESS","handler":"noop"},"timeoutMs":5000}
        """
        .formatted(taskId, delayMs);
  }

  private static String dependency(String taskId, String upstream) {
    return """
        {"v":1,"taskId":"%s","trigger":{"type":"DEPENDENCY","upstream":["%s"]},
         "executor":{"type":"IN_PROCESS","handler":"noop"},"timeoutMs":5000}
        """
        .formatted(taskId, upstream);
  }

  private static String command(String type, String taskId) {
    return "{\"v\":1,\"type\":\"%s\",\"taskId\":\"%s\"}".formatted(type, taskId);
  }

  private static String trigger(String taskId) {
    return "{\"v\":1,\"type\":\"TRIGGER\",\"taskId\":\"%s\",\"flowRunId\":\"up@1\"}"
        .formatted(taskId);
  }

  private double counted(String name) {
    return meters.find(name).counters().stream().mapToDouble(c -> c.count()).sum();
  }

  private double rejectedAs(RejectionClass reasonClass) {
    return meters
        .find("ax.ingest.rejected")
        .tag("reason", reasonClass.name().toLowerCase(Locale.ROOT))
        .counter()
        .count();
  }

  @Test
  void storesABatchInOneInsertAndAnnouncesOnlyWhatIsDueWithinTheHorizon() throws Exception {
    read("soon", once("soon", 1_000));
    read("later", once("later", 3_600_000));

    loop.handle(batch);

    assertThat(port.calls).containsExactly("create soon,later");
    assertThat(port.stored.get("soon").firstDueAtMs()).isEqualTo(T + 1_000);
    assertThat(port.announced)
        .singleElement()
        .satisfies(
            a -> {
              assertThat(a.instanceId()).isEqualTo("soon@" + (T + 1_000));
              assertThat(a.seq()).isEqualTo(1L);
            });
    assertThat(counted("ax.ingest.created.tasks")).isEqualTo(2);
    assertThat(counted("ax.ingest.received")).isEqualTo(2);
  }

  @Test
  void aNamespacesCommandsAreStoredUnderQualifiedIdsLearnedFromTheTopicOnly() throws Exception {
    readFrom("ax.billing.task.commands", "job", once("job", 1_000));
    read("job", once("job", 2_000));
    readFrom("ax.billing.task.commands", "flow", dependency("flow", "job"));

    loop.handle(batch);

    assertThat(port.stored).containsOnlyKeys("billing~job", "job", "billing~flow");
    assertThat(port.stored.get("billing~job").spec().group()).isEqualTo("billing~default");
    assertThat(port.stored.get("billing~flow").spec().trigger())
        .isEqualTo(new dev.ax.common.model.Trigger.Dependency(List.of("billing~job")));
    assertThat(port.rejected).isEmpty();
  }

  @Test
  void aCommandReachingIntoAnotherNamespaceOrFromAnUncreatedOneIsRejected() throws Exception {
    readFrom("ax.billing.task.commands", "x", dependency("x", "other~job"));
    readFrom("ax.nobody.task.commands", "y", once("y", 1_000));
    readFrom("ax.default.task.commands", "z", once("z", 1_000));
    readFrom("ax.billing.task.commands", "billing~w", once("w", 1_000));

    loop.handle(batch);

    assertThat(port.stored).isEmpty();
    assertThat(port.rejected)
        .extracting(Rejected::reason)
        .satisfiesExactly(
            r -> assertThat(r).contains("trigger.upstream", "names another namespace"),
            r -> assertThat(r).contains("namespace nobody does not exist"),
            r -> assertThat(r).contains("no namespace's commands topic"),
            r -> assertThat(r).contains("does not match taskId 'w'"));
  }

  @Test
  void aDuplicateCreateIsCountedAndNotAnnouncedAgain() throws Exception {
    read("dup", once("dup", 1_000));
    read("dup", once("dup", 2_000));

    loop.handle(batch);

    assertThat(counted("ax.ingest.created.tasks")).isEqualTo(1);
    assertThat(counted("ax.ingest.duplicates")).isEqualTo(1);
    assertThat(port.announced).hasSize(1);
    assertThat(port.rejected).isEmpty();
  }

  @Test
  void refusalsAreSentInBatchOrderWithTheirClass() throws Exception {
    read("bad", "{\"v\":1,\"taskId\":");
    read("other", once("mine", 1_000));
    read("unknown-up", dependency("unknown-up", "nobody"));
    read("capped", once("capped", 1_000));
    port.overLimitIds.add("capped");

    loop.handle(batch);

    assertThat(port.rejected)
        .extracting(Rejected::key)
        .containsExactly("bad", "other", "unknown-up", "capped");
    assertThat(port.rejected.get(1).reason())
        .isEqualTo("record key 'other' does not match taskId 'mine'");
    assertThat(port.rejected.get(2).reason()).isEqualTo("unknown upstream nobody");
    assertThat(rejectedAs(RejectionClass.INVALID)).isEqualTo(1);
    assertThat(rejectedAs(RejectionClass.KEY)).isEqualTo(1);
    assertThat(rejectedAs(RejectionClass.UNSUPPORTED)).isEqualTo(1);
    assertThat(rejectedAs(RejectionClass.LIMIT)).isEqualTo(1);
    assertThat(port.stored).isEmpty();
  }

  @Test
  void aLifecycleCommandAppliesAfterTheCommandsReadBeforeIt() throws Exception {
    read("a", once("a", 1_000));
    read("a", command("CANCEL", "a"));
    read("b", once("b", 1_000));
    read("c", command("PAUSE", "c"));
    port.lifecycleRefusals.put("c", "task c does not exist");

    loop.handle(batch);

    assertThat(port.calls)
        .containsExactly("create a", "lifecycle CANCEL a", "create b", "lifecycle PAUSE c");
    assertThat(port.rejected).containsExactly(new Rejected("c", "task c does not exist"));
    assertThat(rejectedAs(RejectionClass.STATE)).isEqualTo(1);
  }

  @Test
  void aDependencyTaskMayWaitForAnUpstreamAcceptedEarlierInTheBatch() throws Exception {
    read("down-early", dependency("down-early", "up"));
    read("up", once("up", 1_000));
    read("down", dependency("down", "up"));

    loop.handle(batch);

    assertThat(port.stored).containsOnlyKeys("up", "down");
    assertThat(port.stored.get("down").hasFirstInstance()).isFalse();
    assertThat(port.graphPublished).containsExactly("down");
    assertThat(port.rejected).containsExactly(new Rejected("down-early", "unknown upstream up"));
  }

  @Test
  void aTriggerForAnUnknownTaskIsRefusedAndAKnownOneCreatesItsInstance() throws Exception {
    read("report", dependency("report", "up"));
    port.stored.put("up", TestTasks.newTask("up", T));
    loop.handle(batch);
    batch.clear();
    read("report", trigger("report"));
    read("ghost", trigger("ghost"));

    loop.handle(batch);

    assertThat(port.triggered).extracting(c -> c.taskId()).containsExactly("report");
    assertThat(port.rejected)
        .containsExactly(new Rejected("ghost", "TRIGGER for unknown task ghost"));
    assertThat(rejectedAs(RejectionClass.STATE)).isEqualTo(1);
  }

  @Test
  void aFailedInsertRejectsNothingSoTheRetriedBatchRejectsEachRecordOnce() {
    read("bad", "{\"v\":1,\"taskId\":");
    read("good", once("good", 1_000));
    port.failCreate = true;

    assertThatThrownBy(() -> loop.handle(batch)).isInstanceOf(StoreException.class);

    assertThat(port.rejected).isEmpty();
    assertThat(port.announced).isEmpty();
  }

  @Test
  void returnsOnlyWhenEverySendIsOnTheBroker() {
    read("bad", "{\"v\":1,\"taskId\":");
    port.failSends = true;

    assertThatThrownBy(() -> loop.handle(batch)).isInstanceOf(ExecutionException.class);
  }

  @Test
  void delaysCountFromTheClockAtAcceptance() throws Exception {
    clock.set(T0.plusSeconds(60));
    read("late", once("late", 1_000));

    loop.handle(batch);

    assertThat(port.stored.get("late").firstDueAtMs()).isEqualTo(T + 61_000);
  }
}
