package dev.ax.dispatcher.store;

import static dev.ax.common.testing.TestTasks.newTask;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TaskState;
import dev.ax.common.store.AuditLog;
import dev.ax.common.store.Database;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.NewTask;
import dev.ax.common.store.Outcome;
import dev.ax.common.store.OutcomeRecording;
import dev.ax.common.testing.RawSql;
import dev.ax.common.testing.RoundTrips;
import dev.ax.common.testing.StoreFixture;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The dispatcher's claim, lease and outcome SQL against a real MySQL-protocol server. */
@ExtendWith(AxInfraExtension.class)
class DispatcherStoreIT {

  @RegisterExtension final StoreFixture store;
  private final AxTestEnv env;
  private final ClaimStore claims;
  private final OutcomeStore outcomes;
  private final AuditLog audit;

  DispatcherStoreIT(AxTestEnv env) {
    this.env = env;
    store = StoreFixture.open(env);
    claims = new ClaimStore(store.runtime().dataSource());
    outcomes = new OutcomeStore(store.runtime().dataSource());
    audit = new AuditLog(store.runtime().dataSource());
  }

  @Test
  void everyTransitionIsConditionalAndAudited() {
    store.tasks().create(List.of(newTask("t", 100)), "ingest-1", 10);
    String id = InstanceIds.of("t", 100);

    assertThat(store.runtime().markDispatchedAsLeader("ticker-1", List.of(id), 100)).hasSize(1);
    assertThat(store.runtime().markDispatchedAsLeader("ticker-2", List.of(id), 101))
        .as("second dispatch")
        .isEmpty();
    List<ClaimedInstance> claimed = claims.claim(List.of(id), "disp-1", 10_000, 105);
    assertThat(claimed).singleElement().satisfies(c -> assertThat(c.attempt()).isEqualTo(1));
    assertThat(claims.claim(List.of(id), "disp-2", 10_000, 106)).as("second claim").isEmpty();
    Outcome outcome = new Outcome(id, "t", 1, InstanceStatus.SUCCESS, null, 120);
    OutcomeRecording notTheOwner = outcomes.recordOutcomes(List.of(outcome), "disp-2", 121);
    assertThat(notTheOwner.recorded()).as("not the owner").isEmpty();
    assertThat(notTheOwner.lost()).containsExactly(outcome);
    OutcomeRecording owner = outcomes.recordOutcomes(List.of(outcome), "disp-1", 121);
    assertThat(owner.recorded()).containsExactly(outcome);
    assertThat(owner.lost()).isEmpty();
    assertThat(outcomes.recordOutcomes(List.of(outcome), "disp-1", 122).lost())
        .as("twice")
        .containsExactly(outcome);

    assertThat(audit.history(id))
        .extracting(AuditLog.Transition::from, AuditLog.Transition::to, AuditLog.Transition::actor)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(null, InstanceStatus.SCHEDULED, "ingest-1"),
            org.assertj.core.groups.Tuple.tuple(
                InstanceStatus.SCHEDULED, InstanceStatus.DISPATCHED, "ticker-1"),
            org.assertj.core.groups.Tuple.tuple(
                InstanceStatus.DISPATCHED, InstanceStatus.RUNNING, "disp-1"),
            org.assertj.core.groups.Tuple.tuple(
                InstanceStatus.RUNNING, InstanceStatus.SUCCESS, "disp-1"));
    assertThat(store.instances().find(id))
        .get()
        .satisfies(
            row -> {
              assertThat(row.status()).isEqualTo(InstanceStatus.SUCCESS);
              assertThat(row.owner()).isEqualTo("disp-1");
              assertThat(row.finishedAtMs()).isEqualTo(120L);
            });
    assertThat(store.tasks().find("t").get().state())
        .as("a one-shot task ends with its run, in the outcome's transaction")
        .isEqualTo(TaskState.ENDED);
  }

  /**
   * Outcomes recorded one by one (a failure with its follow-up, a success with an error) end their
   * one-shot task when nothing of it is left live: DEAD after its last attempt, SUCCESS; a failure
   * left to retry does not.
   */
  @Test
  void outcomesRecordedOneByOneEndTheirOneShotTasks() {
    store
        .tasks()
        .create(
            List.of(newTask("dead", 100), newTask("retried", 100), newTask("odd", 100)), "i", 10);
    List<String> ids = List.of("dead@100", "retried@100", "odd@100");
    assertThat(store.runtime().markDispatchedAsLeader("ticker-1", ids, 100)).hasSize(3);
    assertThat(claims.claim(ids, "disp-1", 10_000, 105)).hasSize(3);

    OutcomeRecording recorded =
        outcomes.recordOutcomes(
            List.of(
                new Outcome(
                    "dead@100",
                    "dead",
                    1,
                    InstanceStatus.FAILED,
                    "boom",
                    120,
                    new dev.ax.common.store.AfterFailure.Dead("no attempts left")),
                new Outcome(
                    "retried@100",
                    "retried",
                    1,
                    InstanceStatus.FAILED,
                    "boom",
                    120,
                    new dev.ax.common.store.AfterFailure.Retry(5_000, "backoff")),
                new Outcome("odd@100", "odd", 1, InstanceStatus.SUCCESS, "done, with a note", 120)),
            "disp-1",
            121);

    assertThat(recorded.recorded()).hasSize(3);
    assertThat(recorded.lost()).isEmpty();
    assertThat(store.tasks().find("dead").get().state()).isEqualTo(TaskState.ENDED);
    assertThat(store.tasks().find("retried").get().state()).isEqualTo(TaskState.ACTIVE);
    assertThat(store.tasks().find("odd").get().state()).isEqualTo(TaskState.ENDED);
  }

  @Test
  void aStaleAttemptNeitherRecordsNorRenewsOverTheCurrentOne() {
    store.tasks().create(List.of(newTask("s", 100), newTask("u", 100)), "ingest-1", 10);
    String stale = InstanceIds.of("s", 100);
    String other = InstanceIds.of("u", 100);
    store.runtime().markDispatchedAsLeader("ticker-1", List.of(stale, other), 100);
    assertThat(claims.claim(List.of(stale, other), "disp-1", 10_000, 105)).hasSize(2);
    // A row whose attempt moved on: attempt 1 of "s" is what this dispatcher still holds.
    try (var connection = store.runtime().dataSource().getConnection();
        var update = connection.createStatement()) {
      update.executeUpdate(
          "UPDATE ax_instance SET attempt = 2 WHERE instance_id = '" + stale + "'");
    } catch (java.sql.SQLException e) {
      throw new AssertionError(e);
    }

    assertThat(
            claims.renewLeases(
                List.of(new RunKey(stale, 1), new RunKey(other, 1), new RunKey(stale, 2)),
                "disp-1",
                50_000,
                110))
        .extracting(ClaimStore.LeaseRenewal::renewed)
        .as("attempt 2 of s and attempt 1 of u; the stale key renews nothing")
        .isEqualTo(2);
    Outcome staleOutcome = new Outcome(stale, "s", 1, InstanceStatus.SUCCESS, null, 120);
    Outcome otherOutcome = new Outcome(other, "u", 1, InstanceStatus.SUCCESS, null, 120);
    Outcome currentOutcome = new Outcome(stale, "s", 2, InstanceStatus.SUCCESS, null, 121);
    OutcomeRecording recording =
        outcomes.recordOutcomes(List.of(staleOutcome, otherOutcome, currentOutcome), "disp-1", 122);
    assertThat(recording.lost()).containsExactly(staleOutcome);
    assertThat(recording.recorded()).containsExactly(otherOutcome, currentOutcome);
    assertThat(recording.isRecorded(staleOutcome)).isFalse();
    assertThat(recording.isRecorded(currentOutcome)).isTrue();
    assertThat(store.instances().find(stale))
        .get()
        .extracting(r -> r.status())
        .isEqualTo(InstanceStatus.SUCCESS);
    assertThat(store.instances().find(stale))
        .get()
        .extracting(r -> r.finishedAtMs())
        .isEqualTo(121L);
  }

  /**
   * A renewal extends only the leases this owner still holds and says why it lost the others: an
   * outcome recorded, a CANCEL, a take-back by another owner, or a row gone. The dispatcher stops
   * renewing those, and interrupts the ones still running.
   */
  @Test
  void aRenewalSaysWhichRunsThisOwnerNoLongerHoldsAndWhy() throws Exception {
    List<String> ids = createMany("r-", 5, 100, "ingest-1", 10);
    store.runtime().markDispatchedAsLeader("ticker-1", ids, 100);
    assertThat(claims.claim(ids, "disp-1", 10_000, 105)).hasSize(5);
    String held = ids.get(0);
    String recorded = ids.get(1);
    String cancelled = ids.get(2);
    String takenBack = ids.get(3);
    String gone = ids.get(4);
    assertThat(
            outcomes
                .recordOutcomes(
                    List.of(new Outcome(recorded, "r-1", 1, InstanceStatus.SUCCESS, null, 110)),
                    "disp-1",
                    110)
                .lost())
        .isEmpty();
    RawSql.execute(
        store.runtime().dataSource(),
        "UPDATE ax_instance SET status = 'CANCELLED' WHERE instance_id = '" + cancelled + "'");
    RawSql.execute(
        store.runtime().dataSource(),
        "UPDATE ax_instance SET owner = 'disp-2', attempt = 2 WHERE instance_id = '"
            + takenBack
            + "'");
    RawSql.execute(
        store.runtime().dataSource(),
        "DELETE FROM ax_instance_log WHERE instance_id = '" + gone + "'");
    RawSql.execute(
        store.runtime().dataSource(), "DELETE FROM ax_instance WHERE instance_id = '" + gone + "'");

    ClaimStore.LeaseRenewal renewal =
        claims.renewLeases(
            ids.stream().map(id -> new RunKey(id, 1)).toList(), "disp-1", 50_000, 120);

    assertThat(renewal.renewed()).isEqualTo(1);
    assertThat(renewal.lost())
        .containsOnlyKeys(
            new RunKey(recorded, 1),
            new RunKey(cancelled, 1),
            new RunKey(takenBack, 1),
            new RunKey(gone, 1));
    assertThat(renewal.lost().get(new RunKey(recorded, 1))).contains("outcome is recorded");
    assertThat(renewal.lost().get(new RunKey(cancelled, 1))).contains("cancelled");
    assertThat(renewal.lost().get(new RunKey(takenBack, 1)))
        .contains("taken back")
        .contains("disp-2");
    assertThat(renewal.lost().get(new RunKey(gone, 1))).contains("no longer exists");
    assertThat(claims.renewLeases(List.of(new RunKey(held, 1)), "disp-1", 60_000, 130).renewed())
        .as("still held")
        .isEqualTo(1);
  }

  /**
   * The database reads rows in proportion to the batch, not to the backlog: claiming, renewing and
   * recording 10 instances among thousands DISPATCHED reads a few rows per instance. Counted with
   * the session's index-read counters on a one-connection pool, so no timing is involved. A plan
   * that walks the status index instead (as the claim's did under load before its key index was
   * forced) reads about 3,000 rows here and fails.
   */
  @Test
  void batchMovesReadTheirOwnRowsNotTheBacklog() throws Exception {
    int backlog = 3_000;
    List<String> ids = createMany("b-", backlog, 100, "ingest-1", 10);
    assertThat(store.runtime().markDispatchedAsLeader("ticker-1", ids, 100)).hasSize(backlog);

    var db = env.database();
    try (var single = Database.open(db.jdbcUrl(), db.user(), db.password(), 1, "read-probe")) {
      ClaimStore probe = new ClaimStore(single);
      OutcomeStore probeOutcomes = new OutcomeStore(single);
      List<String> ten = ids.subList(0, 10);
      long before = indexReads(single);

      List<ClaimedInstance> claimed = probe.claim(ten, "disp-1", 60_000, 200);
      List<RunKey> runs = new ArrayList<>();
      List<Outcome> outcomes = new ArrayList<>();
      for (ClaimedInstance c : claimed) {
        runs.add(new RunKey(c.instanceId(), c.attempt()));
        outcomes.add(
            new Outcome(
                c.instanceId(), c.taskId(), c.attempt(), InstanceStatus.SUCCESS, null, 210));
      }
      int renewed = probe.renewLeases(runs, "disp-1", 90_000, 205).renewed();
      OutcomeRecording recorded = probeOutcomes.recordOutcomes(outcomes, "disp-1", 211);

      long reads = indexReads(single) - before;
      assertThat(claimed).hasSize(10);
      assertThat(renewed).isEqualTo(10);
      assertThat(recorded.lost()).isEmpty();
      assertThat(recorded.recorded()).hasSize(outcomes.size());
      assertThat(reads)
          .as("index rows read to claim, renew and record 10 of %d DISPATCHED instances", backlog)
          .isLessThan(backlog / 3);
    }
  }

  /**
   * A claim is one round trip (counted on the data source, so no timing): the start, the UPDATE,
   * its audit rows, the read-back of the won rows and the commit travel in one packet. Rows lost to
   * an earlier claim are left out; the won rows read back exactly.
   */
  @Test
  void aClaimIsOneRoundTripAndReadsBackExactlyTheRowsItWon() {
    List<String> ids = createMany("k-", 20, 100, "ingest-1", 10);
    Map<String, DueInstance> emitted = new HashMap<>();
    store
        .runtime()
        .markDispatchedAsLeader("ticker-1", ids, 100)
        .forEach(row -> emitted.put(row.instanceId(), row));
    assertThat(emitted).hasSize(20);
    assertThat(claims.claim(ids.subList(0, 5), "disp-0", 60_000, 200)).hasSize(5);

    RoundTrips roundTrips = new RoundTrips(store.runtime().dataSource());
    List<ClaimedInstance> won =
        new ClaimStore(roundTrips.dataSource()).claim(ids, "disp-1", 60_000, 200);

    assertThat(roundTrips.count()).as("round trips of the claim").isEqualTo(1);
    List<ClaimedInstance> expected = new ArrayList<>();
    for (String id : ids.subList(5, 20)) {
      DueInstance row = emitted.get(id);
      expected.add(
          new ClaimedInstance(
              row.instanceId(),
              row.taskId(),
              row.taskVersion(),
              1,
              100,
              200,
              "trace-" + row.taskId(),
              0,
              row.seq(),
              row.instanceId(),
              0));
    }
    assertThat(won).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(audit.history(ids.get(19)))
        .filteredOn(t -> t.to() == InstanceStatus.RUNNING)
        .extracting(AuditLog.Transition::actor)
        .containsExactly("disp-1");
    assertThat(audit.history(ids.get(0)))
        .filteredOn(t -> t.to() == InstanceStatus.RUNNING)
        .extracting(AuditLog.Transition::actor)
        .containsExactly("disp-0");
  }

  /**
   * A run taken back after its due event was sent is claimed again by that event, with the row's
   * own attempt: the claim reads what it won from the row, not from the event.
   */
  @Test
  void aRunTakenBackIsClaimedAgainWithTheNextAttempt() throws Exception {
    store.tasks().create(List.of(newTask("taken", 100), newTask("fresh", 100)), "ingest-1", 10);
    String taken = InstanceIds.of("taken", 100);
    String fresh = InstanceIds.of("fresh", 100);
    store.runtime().markDispatchedAsLeader("ticker-1", List.of(taken, fresh), 100);
    assertThat(claims.claim(List.of(taken), "disp-1", 10_000, 105)).hasSize(1);
    // As the reaper does when the run's lease expires: back to DISPATCHED, attempt 1 kept.
    RawSql.execute(
        store.runtime().dataSource(),
        "UPDATE ax_instance SET status = 'DISPATCHED', owner = NULL, lease_until_ms = NULL"
            + " WHERE instance_id = '"
            + taken
            + "'");

    List<ClaimedInstance> won = claims.claim(List.of(taken, fresh), "disp-2", 90_000, 20_000);

    assertThat(won)
        .extracting(ClaimedInstance::instanceId, ClaimedInstance::attempt)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple(taken, 2),
            org.assertj.core.groups.Tuple.tuple(fresh, 1));
    assertThat(claims.claim(List.of(taken, fresh), "disp-3", 90_000, 20_001))
        .as("claimed already")
        .isEmpty();
    assertThat(audit.history(taken))
        .filteredOn(t -> t.to() == InstanceStatus.RUNNING)
        .extracting(AuditLog.Transition::actor)
        .containsExactly("disp-1", "disp-2");
  }

  @Test
  void nothingIsClaimedBeforeItsDueTime() {
    store.tasks().create(List.of(newTask("early", 1000)), "ingest", 1);
    String id = InstanceIds.of("early", 1000);
    store
        .runtime()
        .markDispatchedAsLeader("ticker", List.of(id), 900); // emitted ahead, with a lead

    assertThat(claims.claim(List.of(id), "disp", 60_000, 999)).as("1 ms before due").isEmpty();
    assertThat(claims.claim(List.of(id), "disp", 60_000, 1000)).as("at due").hasSize(1);
  }

  @Test
  void racingClaimersWinEachInstanceExactlyOnce() throws Exception {
    int count = 300;
    List<String> ids = createMany("race-", count, 50, "test", 1);
    store.runtime().markDispatchedAsLeader("ticker", ids, 50);

    int claimers = 6;
    ExecutorService pool = Executors.newFixedThreadPool(claimers);
    List<Callable<List<ClaimedInstance>>> calls = new ArrayList<>();
    for (int c = 0; c < claimers; c++) {
      String owner = "disp-" + c;
      List<String> shuffled = new ArrayList<>(ids);
      java.util.Collections.shuffle(shuffled, new java.util.Random(c));
      calls.add(() -> claims.claim(shuffled, owner, 10_000, 60));
    }
    Map<String, Integer> wins = new HashMap<>();
    for (Future<List<ClaimedInstance>> result : pool.invokeAll(calls)) {
      for (ClaimedInstance claimed : result.get()) {
        wins.merge(claimed.instanceId(), 1, Integer::sum);
      }
    }
    pool.shutdown();

    assertThat(wins).hasSize(count);
    assertThat(wins.values()).allMatch(n -> n == 1);
    IntStream.range(0, 5).forEach(i -> assertThat(audit.history(ids.get(i))).hasSize(3));
  }

  /**
   * Stores {@code count} one-shot tasks {@code <prefix>0, <prefix>1, ...}, each first due at {@code
   * dueAtMs}, as {@code createdBy} at {@code nowMs}; returns their instance ids in that order.
   */
  private List<String> createMany(
      String prefix, int count, long dueAtMs, String createdBy, long nowMs) {
    List<NewTask> batch = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      batch.add(newTask(prefix + i, dueAtMs));
      ids.add(InstanceIds.of(prefix + i, dueAtMs));
    }
    store.tasks().create(batch, createdBy, nowMs);
    return ids;
  }

  /** Handler_read_key + Handler_read_next of the pool's (only) connection so far. */
  private static long indexReads(javax.sql.DataSource single) throws java.sql.SQLException {
    try (var connection = single.getConnection();
        var statement = connection.createStatement();
        var rs = statement.executeQuery("SHOW SESSION STATUS LIKE 'Handler_read_%'")) {
      long reads = 0;
      while (rs.next()) {
        String name = rs.getString(1);
        if (name.equalsIgnoreCase("Handler_read_key")
            || name.equalsIgnoreCase("Handler_read_next")) {
          reads += rs.getLong(2);
        }
      }
      return reads;
    }
  }
}
