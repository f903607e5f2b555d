package dev.ax.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.contract.CommandReadResult;
import dev.ax.common.contract.CommandType;
import dev.ax.common.contract.TaskCommand;
import dev.ax.common.model.TaskSpec;
import dev.ax.common.model.Trigger;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.store.CreateOutcome;
import dev.ax.common.store.CreateResult;
import dev.ax.common.testing.TestTasks;
import dev.ax.ingest.CreatePlan.FollowUp;
import dev.ax.ingest.CreatePlanner.ReadCommand;
import dev.ax.ingest.CreatePlanner.Screened;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** The create planner's rules, with no database and no broker. */
class CreatePlannerTest {

  private static final long T = Instant.parse("2026-03-01T10:00:00Z").toEpochMilli();

  private final CreatePlanner planner = new CreatePlanner(new FireTimes());

  private static ConsumerRecord<String, byte[]> record(String key) {
    return new ConsumerRecord<>("ax.task.commands", 0, 0, key, new byte[0]);
  }

  private static TaskCommand create(TaskSpec spec, boolean timeoutDefaulted) {
    return new TaskCommand(
        1,
        CommandType.CREATE,
        spec.taskId(),
        null,
        spec,
        "trace-" + spec.taskId(),
        timeoutDefaulted,
        null,
        null,
        null,
        false,
        null);
  }

  private static CommandRow row(TaskSpec spec) {
    return new CommandRow(record(spec.taskId()), create(spec, false));
  }

  private static TaskSpec once(String taskId, long delayMs) {
    return TestTasks.noop(taskId, Trigger.Once.after(Duration.ofMillis(delayMs)));
  }

  private static TaskSpec dependency(String taskId) {
    return TestTasks.noop(taskId, new Trigger.Dependency(List.of("up")));
  }

  private static ReadCommand accepted(String key, TaskCommand command) {
    return new ReadCommand(record(key), new CommandReadResult.Accepted(command));
  }

  @Test
  void screensEachRecordInBatchOrder() {
    TaskCommand trigger =
        new TaskCommand(
            1,
            CommandType.TRIGGER,
            "d",
            null,
            null,
            "trace",
            false,
            "f@1",
            null,
            null,
            false,
            null);
    List<Screened> screened =
        planner.screen(
            List.of(
                new ReadCommand(record("bad"), new CommandReadResult.Rejected("not JSON")),
                accepted("other", create(once("a", 1), false)),
                accepted("d", trigger),
                accepted("b", create(once("b", 1), false)),
                accepted("c", create(dependency("c"), false))));

    assertThat(screened).hasSize(5);
    assertThat(((Screened.Refused) screened.get(0)).refusal())
        .extracting(Refusal::reasonClass, Refusal::reason)
        .containsExactly(RejectionClass.INVALID, "not JSON");
    assertThat(((Screened.Refused) screened.get(1)).refusal().reasonClass())
        .isEqualTo(RejectionClass.KEY);
    assertThat(((Screened.Triggering) screened.get(2)).row().command()).isSameAs(trigger);
    assertThat(((Screened.Creating) screened.get(3)).dependency()).isFalse();
    assertThat(((Screened.Creating) screened.get(4)).dependency()).isTrue();
  }

  @Test
  void plansTheFirstInstanceFromTheAcceptanceTime() {
    CreatePlan plan = planner.plan(List.of(row(once("a", 5_000))), Map.of(), T);

    assertThat(plan.inserts())
        .singleElement()
        .satisfies(
            t -> {
              assertThat(t.firstDueAtMs()).isEqualTo(T + 5_000);
              assertThat(t.traceId()).isEqualTo("trace-a");
            });
    assertThat(plan.refusals()).isEmpty();
  }

  @Test
  void refusesWhatIsOverTheLimitAndWhatNeverFires() {
    TaskSpec yearsOver =
        TestTasks.noop("over", new Trigger.Cron("0 0 0 1 1 ? 2020", ZoneOffset.UTC));
    CommandRow capped = row(once("capped", 1));

    CreatePlan plan =
        planner.plan(
            List.of(capped, row(yearsOver), row(once("fine", 1))),
            Map.of(0, "group 'default' is full"),
            T);

    assertThat(plan.refusals())
        .extracting(Refusal::reasonClass, Refusal::reason)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(RejectionClass.LIMIT, "group 'default' is full"),
            org.assertj.core.groups.Tuple.tuple(
                RejectionClass.UNSUPPORTED, CreatePlanner.NEVER_FIRES));
    assertThat(plan.refusals().get(0).record()).isSameAs(capped.record());
    assertThat(plan.inserts()).extracting(t -> t.spec().taskId()).containsExactly("fine");
  }

  @Test
  void aDependencyTaskIsInsertedWithoutAFirstInstance() {
    CreatePlan plan = planner.plan(List.of(row(dependency("d"))), Map.of(), T);

    assertThat(plan.inserts())
        .singleElement()
        .satisfies(
            t -> {
              assertThat(t.hasFirstInstance()).isFalse();
              assertThat(t.firstDueAtMs()).isEqualTo(T);
            });
  }

  @Test
  void announcesCreatedFirstInstancesDueWithinTheHorizonInclusive() {
    CreatePlan plan =
        planner.plan(
            List.of(row(once("edge", 60_000)), row(once("beyond", 60_001)), row(once("dup", 1))),
            Map.of(),
            T);
    CreateResult result =
        new CreateResult(
            List.of(CreateOutcome.CREATED, CreateOutcome.CREATED, CreateOutcome.DUPLICATE),
            Map.of("edge@" + (T + 60_000), 7L, "beyond@" + (T + 60_001), 8L));

    FollowUp followUp = planner.followUp(plan, result, 60_000);

    assertThat(followUp.announcements())
        .singleElement()
        .satisfies(
            a -> {
              assertThat(a.instanceId()).isEqualTo("edge@" + (T + 60_000));
              assertThat(a.seq()).isEqualTo(7L);
            });
    assertThat(followUp.settled())
        .extracting(CreatePlan.Settled::outcome)
        .containsExactly(CreateOutcome.CREATED, CreateOutcome.CREATED, CreateOutcome.DUPLICATE);
  }

  @Test
  void aDependencyTaskIsPublishedToTheGraphEvenAsADuplicate() {
    CreatePlan plan =
        planner.plan(
            List.of(
                new CommandRow(record("d"), create(dependency("d"), true)), row(dependency("e"))),
            Map.of(),
            T);
    CreateResult result =
        new CreateResult(List.of(CreateOutcome.DUPLICATE, CreateOutcome.CREATED), Map.of());

    FollowUp followUp = planner.followUp(plan, result, 60_000);

    assertThat(followUp.graphTasks()).extracting(t -> t.spec().taskId()).containsExactly("d", "e");
    assertThat(followUp.announcements()).isEmpty();
    assertThat(followUp.settled())
        .extracting(CreatePlan.Settled::timeoutDefaulted)
        .containsExactly(true, false);
  }
}
