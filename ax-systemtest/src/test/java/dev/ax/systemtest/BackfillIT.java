package dev.ax.systemtest;

import static dev.ax.systemtest.TaskBody.cron;
import static dev.ax.systemtest.TaskBody.fixedRate;
import static dev.ax.systemtest.TaskBody.noop;
import static dev.ax.systemtest.TaskBody.once;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.cli.command.ExitCodes;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.BackfillStore;
import dev.ax.common.store.BackfillStore.Backfill;
import dev.ax.common.store.InstanceRow;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Backfill through the public contract, one node of ingest, ticker and dispatcher, driven by {@code
 * ax task backfill}: 30 past slots of an every-second cron become 30 firings {@code
 * task@backfill:<slot>} that run once each; the same backfill again creates nothing; SKIP records
 * the firings that meet a run SKIPPED; the default overlap (BUFFER_ALL for a task that does not
 * allow overlap) runs them one after another; a range too large, in the future, or of a ONCE task
 * is refused with the reason.
 */
@ExtendWith(AxInfraExtension.class)
class BackfillIT {

  private static final Pattern ACCEPTED =
      Pattern.compile("backfill (bf-[0-9a-f]+) of task (\\S+): (\\d+) firing\\(s\\)");

  @Test
  void aBackfillCreatesEachPastSlotOnceAtItsPaceAndRefusesWhatIsNoBackfill(AxTestEnv env)
      throws Exception {
    try (OneNode node = OneNode.start(env);
        CliRun.Target cli = CliRun.pointAt(env, node.runtime())) {
      BackfillStore backfills = new BackfillStore(node.runtime().dataSource());
      node.send("tick", noop(cron("* * * * * ?", "UTC")));
      node.send("one-off", noop(once(3_600_000)));
      Commands.awaitFirstInstance(node.runtime(), "tick", r -> true);
      Commands.awaitFirstInstance(node.runtime(), "one-off", r -> true);
      Instant t = Instant.now().truncatedTo(ChronoUnit.SECONDS);
      Instant from = t.minusSeconds(60);
      Instant to = t.minusSeconds(31);

      String first = backfill("tick", from, to, "--overlap", "ALLOW_ALL");
      Backfill done = awaitEnded(backfills, first);
      assertThat(done.state()).isEqualTo(BackfillStore.State.DONE);
      assertThat(done.created()).isEqualTo(30);
      List<String> expected =
          LongStream.rangeClosed(0, 29)
              .mapToObj(i -> InstanceIds.backfillOf("tick", from.plusSeconds(i).toEpochMilli()))
              .toList();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  inRange(node, from, to).stream()
                      .allMatch(r -> r.status() == InstanceStatus.SUCCESS));
      assertThat(inRange(node, from, to))
          .extracting(InstanceRow::instanceId)
          .containsExactlyInAnyOrderElementsOf(expected);
      assertThat(inRange(node, from, to)).allSatisfy(r -> assertThat(r.attempt()).isEqualTo(1));

      // The same range again: accepted, every slot passed over, nothing created.
      Backfill again = awaitEnded(backfills, backfill("tick", from, to));
      assertThat(again.created()).isZero();
      assertThat(again.existing()).isEqualTo(30);
      assertThat(inRange(node, from, to)).hasSize(30);

      // SKIP: of one step's firings at most one runs; the others meet it and are SKIPPED.
      Backfill skip =
          awaitEnded(
              backfills,
              backfill("tick", t.minusSeconds(100), t.minusSeconds(96), "--overlap", "SKIP"));
      assertThat(skip.created()).isEqualTo(5);
      assertThat(skip.skipped()).isPositive();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  inRange(node, t.minusSeconds(100), t.minusSeconds(96)).stream()
                      .allMatch(r -> r.status().isTerminal()));
      assertThat(
              inRange(node, t.minusSeconds(100), t.minusSeconds(96)).stream()
                  .filter(r -> r.status() == InstanceStatus.SKIPPED))
          .hasSize((int) skip.skipped());
      // The default for a task that does not allow overlap: one after another.
      Backfill buffered =
          awaitEnded(backfills, backfill("tick", t.minusSeconds(120), t.minusSeconds(118)));
      assertThat(buffered.overlap().name()).isEqualTo("BUFFER_ALL");
      assertThat(buffered.created()).isEqualTo(3);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> finishedInRange(node, t.minusSeconds(120), t.minusSeconds(118)).size() == 3);
      List<InstanceRow> oneByOne = finishedInRange(node, t.minusSeconds(120), t.minusSeconds(118));
      for (int i = 1; i < oneByOne.size(); i++) {
        assertThat(oneByOne.get(i).claimedAtMs())
            .as("%s starts after %s ended", oneByOne.get(i).instanceId(), oneByOne.get(i - 1))
            .isGreaterThanOrEqualTo(oneByOne.get(i - 1).finishedAtMs());
      }

      refusesWhatIsNoBackfill(t, from, to);
      String listed = CliRun.ax("task", "backfills", "tick").okOut();
      assertThat(listed).contains(first, "DONE", "4 backfill(s)");
      aFixedRateIsBackfilledOnItsGrid(node, backfills, t);
      aPausedTasksBackfillWaitsAndACancelledTasksEnds(node, backfills, t);
    }
  }

  /** A range too large, a range in the future, a ONCE task: refused with the reason, exit 1. */
  private static void refusesWhatIsNoBackfill(Instant t, Instant from, Instant to) {
    assertRefused(
        CliRun.ax(
            "task",
            "backfill",
            "tick",
            "--from",
            t.minus(3, ChronoUnit.DAYS).toString(),
            "--to",
            t.minus(1, ChronoUnit.DAYS).toString()),
        "the range holds more than 100000 firings of task tick");
    assertRefused(
        CliRun.ax(
            "task",
            "backfill",
            "tick",
            "--from",
            t.plusSeconds(3600).toString(),
            "--to",
            t.plusSeconds(7200).toString()),
        "the range lies in the future");
    assertRefused(
        CliRun.ax("task", "backfill", "one-off", "--from", from.toString(), "--to", to.toString()),
        "task one-off is a ONCE task: only CRON and FIXED_RATE tasks have slots to backfill");
  }

  /**
   * A FIXED_RATE task's backfill firings lie on the grid of its own firings (AX_MIN_INTERVAL 1 s).
   */
  private static void aFixedRateIsBackfilledOnItsGrid(
      OneNode node, BackfillStore backfills, Instant t) throws Exception {
    node.send("rate", noop(fixedRate(2000)));
    InstanceRow next = Commands.awaitFirstInstance(node.runtime(), "rate", r -> true);
    long phaseMs = Math.floorMod(InstanceIds.slotOf(next.instanceId()), 2000L);
    Backfill rate =
        awaitEnded(
            backfills,
            backfill(
                "rate",
                t.minusSeconds(40),
                t.minusSeconds(30).minusMillis(1), // 10 s: 5 slots whatever the phase
                "--overlap",
                "ALLOW_ALL"));
    assertThat(rate.created()).as("10 s of a 2 s grid").isEqualTo(5);
    List<InstanceRow> firings =
        node.instances().findByTask("rate").stream()
            .filter(r -> InstanceIds.isBackfillId(r.instanceId()))
            .toList();
    assertThat(firings).hasSize((int) rate.created());
    assertThat(firings)
        .allSatisfy(r -> assertThat(Math.floorMod(slotOf(r), 2000L)).isEqualTo(phaseMs));
  }

  /** A paused task's backfill creates nothing until RESUME; its task's CANCEL ends it. */
  private static void aPausedTasksBackfillWaitsAndACancelledTasksEnds(
      OneNode node, BackfillStore backfills, Instant t) throws Exception {
    node.send("held", noop(cron("* * * * * ?", "UTC")));
    Commands.awaitFirstInstance(node.runtime(), "held", r -> true);
    node.sendJson("held", Commands.lifecycle("PAUSE", "held", "p-1"));
    node.awaitState("held", "PAUSED");
    String id = backfill("held", t.minusSeconds(20), t.minusSeconds(11));
    Thread.sleep(1_000); // five passes of the creator
    assertThat(backfills.find(id).orElseThrow().created()).isZero();
    node.sendJson("held", Commands.lifecycle("CANCEL", "held", "c-1"));
    Backfill ended = awaitEnded(backfills, id);
    assertThat(ended.state()).isEqualTo(BackfillStore.State.CANCELLED);
    assertThat(ended.endedReason()).isEqualTo("task held is CANCELLED");
    assertThat(ended.created()).isZero();
  }

  /** Runs {@code ax task backfill} and returns the backfill id it printed. */
  private static String backfill(String taskId, Instant from, Instant to, String... more) {
    List<String> args =
        new java.util.ArrayList<>(
            List.of("task", "backfill", taskId, "--from", from.toString(), "--to", to.toString()));
    args.addAll(List.of(more));
    String out = CliRun.ax(args.toArray(String[]::new)).okOut();
    Matcher accepted = ACCEPTED.matcher(out);
    assertThat(accepted.find()).as(out).isTrue();
    return accepted.group(1);
  }

  private static Backfill awaitEnded(BackfillStore backfills, String id) {
    return await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> backfills.find(id).orElseThrow(), b -> b.state() != BackfillStore.State.RUNNING);
  }

  private static void assertRefused(CliRun run, String reason) {
    assertThat(run.exitCode()).as(run.out()).isEqualTo(ExitCodes.FAILED);
    assertThat(run.err()).contains(reason);
  }

  /** The backfill firings of slots in {@code [from, to]}, whatever their status. */
  private static List<InstanceRow> inRange(OneNode node, Instant from, Instant to) {
    return node.instances().findByTask("tick").stream()
        .filter(r -> InstanceIds.isBackfillId(r.instanceId()))
        .filter(r -> slotOf(r) >= from.toEpochMilli() && slotOf(r) <= to.toEpochMilli())
        .toList();
  }

  private static long slotOf(InstanceRow r) {
    String id = r.instanceId();
    return Long.parseLong(id.substring(id.lastIndexOf(':') + 1));
  }

  /** The backfill firings of slots in {@code [from, to]} that finished, oldest slot first. */
  private static List<InstanceRow> finishedInRange(OneNode node, Instant from, Instant to) {
    return inRange(node, from, to).stream()
        .filter(r -> r.finishedAtMs() != null)
        .sorted(Comparator.comparingLong(BackfillIT::slotOf))
        .toList();
  }
}
