package dev.ax.systemtest;

import static dev.ax.systemtest.TaskBody.cron;
import static dev.ax.systemtest.TaskBody.fixedRate;
import static dev.ax.systemtest.TaskBody.noop;
import static org.awaitility.Awaitility.await;

import dev.ax.common.store.BackfillStore;
import dev.ax.common.store.BackfillStore.Backfill;
import dev.ax.common.store.Jdbc;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The backfill benchmark behind docs/BENCHMARKS.md ("Backfill"), run by hand only: {@code mvn -pl
 * ax-systemtest verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false
 * -Dit.test=BackfillBenchIT -Dax.bench.backfill=true [-Dax.bench.backfill.rate=50
 * -Dax.bench.backfill.inflight=100 -Dax.bench.backfill.firings=10000]}. One node (ingest, ticker,
 * dispatcher in this JVM) runs {@link #OTHER_TASKS} FIXED_RATE tasks every second (the other due
 * work); their start lateness (claim minus due time) is measured for {@link #BASELINE} alone, then
 * while a backfill of an every-second cron's past slots (ALLOW_ALL) runs at the rate given, then
 * again after it. It asserts nothing; it prints one line of figures per phase.
 */
@ExtendWith(AxInfraExtension.class)
@EnabledIfSystemProperty(named = "ax.bench.backfill", matches = "true")
class BackfillBenchIT {

  private static final int OTHER_TASKS = 20;
  private static final Duration BASELINE = Duration.ofSeconds(60);
  private static final Pattern ACCEPTED = Pattern.compile("backfill (bf-[0-9a-f]+) of task");

  @Test
  void latenessOfOtherTasksWhileABackfillRuns(AxTestEnv env) throws Exception {
    int rate = Integer.getInteger("ax.bench.backfill.rate", 50);
    int inFlight = Integer.getInteger("ax.bench.backfill.inflight", 100);
    int firings = Integer.getInteger("ax.bench.backfill.firings", 10_000);
    try (OneNode node =
            OneNode.start(
                env,
                Map.of(
                    "AX_BACKFILL_RATE", Integer.toString(rate),
                    "AX_BACKFILL_MAX_IN_FLIGHT", Integer.toString(inFlight)));
        CliRun.Target cli = CliRun.pointAt(env, node.runtime())) {
      for (int i = 0; i < OTHER_TASKS; i++) {
        node.send("other-" + i, noop(fixedRate(1000)));
      }
      node.send("late", noop(cron("* * * * * ?", "UTC")));
      Thread.sleep(10_000); // warm up: every task fired a few times
      long baselineFrom = System.currentTimeMillis();
      Thread.sleep(BASELINE.toMillis());
      long baselineTo = System.currentTimeMillis();
      report("baseline", node, baselineFrom, baselineTo, 0, 0);

      Instant to = Instant.now().truncatedTo(ChronoUnit.SECONDS).minus(1, ChronoUnit.DAYS);
      Instant from = to.minusSeconds(firings - 1);
      long started = System.currentTimeMillis();
      String out =
          CliRun.ax(
                  "task",
                  "backfill",
                  "late",
                  "--from",
                  from.toString(),
                  "--to",
                  to.toString(),
                  "--overlap",
                  "ALLOW_ALL")
              .okOut();
      Matcher accepted = ACCEPTED.matcher(out);
      accepted.find();
      String id = accepted.group(1);
      BackfillStore backfills = new BackfillStore(node.runtime().dataSource());
      Backfill done =
          await()
              .atMost(Duration.ofSeconds(firings / Math.max(1, rate / 2) + 120))
              .pollInterval(Duration.ofSeconds(1))
              .until(
                  () -> backfills.find(id).orElseThrow(),
                  b -> b.state() != BackfillStore.State.RUNNING);
      long created = System.currentTimeMillis();
      await()
          .atMost(Duration.ofMinutes(5))
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> unfinishedBackfillFirings(node) == 0);
      long ended = System.currentTimeMillis();
      // Due work while the backfill's firings were created and ran: the request to the last end.
      report("during backfill", node, started, ended, done.created(), created - started);
      System.out.printf(
          Locale.ROOT,
          "[backfill-bench] backfill %s: %d firing(s) created in %.1f s (%.1f/s), all ended %.1f s"
              + " after the request; rate %d/s, max in flight %d%n",
          id,
          done.created(),
          (created - started) / 1000.0,
          done.created() * 1000.0 / Math.max(1, created - started),
          (ended - started) / 1000.0,
          rate,
          inFlight);
      long afterFrom = System.currentTimeMillis();
      Thread.sleep(30_000);
      report("after", node, afterFrom, System.currentTimeMillis(), 0, 0);
    }
  }

  private static long unfinishedBackfillFirings(OneNode node) {
    return new Jdbc(node.runtime().dataSource())
        .queryLong(
            "counting unfinished backfill firings",
            "SELECT COUNT(*) FROM ax_instance WHERE task_id = 'late' AND instance_id LIKE"
                + " 'late@backfill:%' AND status NOT IN ('SUCCESS', 'SKIPPED', 'DEAD')",
            statement -> {});
  }

  /** Start lateness of the other tasks' runs due in {@code [fromMs, toMs)}: p50, p99, max. */
  private static void report(
      String phase, OneNode node, long fromMs, long toMs, long backfilled, long spanMs) {
    List<Long> lateness =
        new ArrayList<>(
            new Jdbc(node.runtime().dataSource())
                .query(
                    "reading lateness",
                    "SELECT claimed_at_ms - due_at_ms FROM ax_instance WHERE task_id LIKE"
                        + " 'other-%' AND due_at_ms >= ? AND due_at_ms < ? AND claimed_at_ms IS"
                        + " NOT NULL",
                    statement -> {
                      statement.setLong(1, fromMs);
                      statement.setLong(2, toMs);
                    },
                    rs -> rs.getLong(1)));
    lateness.sort(Long::compare);
    System.out.printf(
        Locale.ROOT,
        "[backfill-bench] %s: %d run(s) of %d other tasks over %.0f s; start lateness p50 %d ms,"
            + " p99 %d ms, max %d ms%s%n",
        phase,
        lateness.size(),
        OTHER_TASKS,
        (toMs - fromMs) / 1000.0,
        percentile(lateness, 0.50),
        percentile(lateness, 0.99),
        lateness.isEmpty() ? -1 : lateness.get(lateness.size() - 1),
        backfilled == 0
            ? ""
            : String.format(
                Locale.ROOT,
                "; %d backfill firings created in %.1f s",
                backfilled,
                spanMs / 1000.0));
  }

  private static long percentile(List<Long> sorted, double q) {
    if (sorted.isEmpty()) {
      return -1;
    }
    return sorted.get((int) Math.min(sorted.size() - 1, Math.ceil(q * sorted.size()) - 1));
  }
}
