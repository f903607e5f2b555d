package dev.ax.dispatcher.store;

import static dev.ax.common.model.InstanceStatus.RUNNING;

import dev.ax.common.kafka.Topics;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.StatusTransitions;
import dev.ax.common.store.AuditLog;
import dev.ax.common.store.BatchMove;
import dev.ax.common.store.FailureFollowUps;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.OneShotEnd;
import dev.ax.common.store.OutboxMessage;
import dev.ax.common.store.OutboxStore;
import dev.ax.common.store.Outcome;
import dev.ax.common.store.OutcomeRecording;
import dev.ax.common.store.PacketTransaction;
import dev.ax.common.store.RunOutputs;
import dev.ax.common.store.ShardEvents;
import dev.ax.common.store.ShardFirings;
import dev.ax.common.store.Sql;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.sql.DataSource;

/**
 * The dispatcher's outcome SQL over {@code ax_instance}: RUNNING → SUCCESS / FAILED / TIMEOUT, each
 * only if this owner still holds that attempt, then for a failure → RETRYING or DEAD, with audit
 * rows and the events each recorded outcome owes in the outbox, all in one transaction. Successes
 * go as one batch move per chunk (whose first packet starts the transaction); failures, each with
 * its own error, one conditional UPDATE each. A ONCE task whose last live instance ends here
 * becomes ENDED in the same transaction ({@link OneShotEnd}). The output of each recorded attempt
 * that has one goes to {@code ax_run_output} in that transaction too ({@link RunOutputs}).
 *
 * <p>Thread-safe (stateless over a pool).
 */
public final class OutcomeStore {

  private static final int MAX_ERROR_LENGTH = 2048;

  private final Jdbc jdbc;
  private final ShardEvents shardEvents;

  /**
   * @param shardEvents the events of the sharded firings an outcome settles ({@link ShardFirings})
   */
  public OutcomeStore(DataSource dataSource, ShardEvents shardEvents) {
    this.jdbc = new Jdbc(dataSource);
    this.shardEvents = shardEvents;
  }

  /** A store whose settled firings' events go to the default topics (tests, tools). */
  public OutcomeStore(DataSource dataSource) {
    this(dataSource, new ShardEvents(new Topics(""), "dispatcher"));
  }

  /**
   * RUNNING → SUCCESS / FAILED / TIMEOUT, each only if this owner still holds that attempt.
   *
   * @return the outcomes recorded and those lost (their run was taken back)
   */
  public OutcomeRecording recordOutcomes(List<Outcome> outcomes, String owner, long nowMs) {
    return recordOutcomes(outcomes, List.of(), null, owner, nowMs);
  }

  /**
   * As {@link #recordOutcomes(List, String, long)}, and in the same transaction puts the events
   * each recorded outcome owes into the outbox under {@code outboxToken} (see {@link OutboxStore}):
   * an outcome is never committed without its events.
   *
   * @param events for each outcome, in order, the records it owes once recorded (empty for none);
   *     an empty list for no outcome at all
   */
  public OutcomeRecording recordOutcomes(
      List<Outcome> outcomes,
      List<List<OutboxMessage>> events,
      String outboxToken,
      String owner,
      long nowMs) {
    if (outcomes.isEmpty()) {
      return OutcomeRecording.none();
    }
    if (!events.isEmpty() && events.size() != outcomes.size()) {
      throw new IllegalArgumentException(
          events.size() + " event lists for " + outcomes.size() + " outcomes");
    }
    boolean owesEvents = events.stream().anyMatch(list -> !list.isEmpty());
    boolean mayEndShards = outcomes.stream().anyMatch(Outcome::endsShard);
    boolean hasOutput = outcomes.stream().anyMatch(outcome -> outcome.output() != null);
    for (Outcome outcome : outcomes) {
      StatusTransitions.require(RUNNING, outcome.status());
    }
    return jdbc.inPacketTransaction(
        "recording " + outcomes.size() + " outcome(s)",
        transaction -> {
          Set<String> won = new HashSet<>();
          // Successes carry no error: one UPDATE per chunk for all of them, which needs each
          // instance once (its attempt is matched by instance id); a second attempt of the same
          // instance in one batch (a run taken back and claimed again) goes one by one.
          List<Outcome> successes = new ArrayList<>();
          List<Outcome> others = new ArrayList<>();
          Set<String> batched = new HashSet<>();
          for (Outcome outcome : outcomes) {
            boolean success = outcome.status() == InstanceStatus.SUCCESS && outcome.error() == null;
            (success && batched.add(outcome.instanceId()) ? successes : others).add(outcome);
          }
          List<List<Outcome>> chunks = Sql.chunks(successes);
          for (int c = 0; c < chunks.size(); c++) {
            boolean commits =
                !owesEvents
                    && !mayEndShards
                    && !hasOutput
                    && others.isEmpty()
                    && c == chunks.size() - 1;
            List<Outcome> chunk = chunks.get(c);
            won.addAll(
                transaction.move(
                    "instance_id",
                    chunk.stream().map(Outcome::instanceId).toList(),
                    successMove(chunk, owner),
                    nowMs,
                    commits));
          }
          if (!others.isEmpty()) {
            won.addAll(recordOneByOne(transaction, others, owner, nowMs));
          }
          OutcomeRecording recorded = OutcomeRecording.of(outcomes, won);
          if (hasOutput) {
            RunOutputs.insert(
                transaction.connection(), outcomes.stream().filter(recorded::isRecorded).toList());
          }
          List<OutboxMessage> owed = new ArrayList<>();
          for (int i = 0; i < outcomes.size() && owesEvents; i++) {
            if (recorded.isRecorded(outcomes.get(i))) {
              owed.addAll(events.get(i));
            }
          }
          List<OutboxMessage> settled = settleFirings(transaction, recorded, owner, nowMs);
          owed.addAll(settled);
          if (!owed.isEmpty()) {
            transaction.outbox(owed, outboxToken, nowMs);
          }
          return recorded.withSettledFirings(settled);
        });
  }

  /**
   * Settles the sharded firings whose last shard one of {@code recorded}'s outcomes ended, in the
   * same transaction; their events.
   */
  private List<OutboxMessage> settleFirings(
      PacketTransaction transaction, OutcomeRecording recorded, String owner, long nowMs)
      throws SQLException {
    Set<String> firings = new TreeSet<>();
    for (Outcome outcome : recorded.recorded()) {
      if (outcome.endsShard()) {
        firings.add(outcome.shardOf());
      }
    }
    if (firings.isEmpty()) {
      return List.of();
    }
    return shardEvents.settled(
        ShardFirings.settle(transaction.connection(), firings, owner, nowMs), nowMs);
  }

  /**
   * RUNNING → SUCCESS for one chunk (at most {@link Sql#MAX_IN_LIST}, so the move is one packet),
   * conditional on each instance's attempt and the owner; reads back the winners as {@link #runOf}.
   */
  private static BatchMove<String> successMove(List<Outcome> chunk, String owner) {
    String byInstance = RunKey.caseByInstanceId(chunk.size());
    List<Object> finishedAt = new ArrayList<>(chunk.size() * 2);
    List<Object> attemptOf = new ArrayList<>(chunk.size() * 2 + 1);
    for (Outcome outcome : chunk) {
      finishedAt.add(outcome.instanceId());
      finishedAt.add(outcome.finishedAtMs());
      attemptOf.add(outcome.instanceId());
      attemptOf.add(outcome.attempt());
    }
    attemptOf.add(owner);
    return BatchMove.from(RUNNING)
        .<String>to(InstanceStatus.SUCCESS)
        .set(
            "finished_at_ms = " + byInstance + ", last_error = NULL, lease_until_ms = NULL",
            finishedAt.toArray())
        .where("attempt = " + byInstance + " AND owner = ?", attemptOf.toArray())
        .readBack("instance_id, attempt", rs -> rs.getString(1) + "#" + rs.getInt(2))
        .audit(owner, "completed");
  }

  private static String runOf(Outcome outcome) {
    return OutcomeRecording.runOf(outcome);
  }

  /** Failures and timeouts, each with its own error: one conditional UPDATE per outcome. */
  private static Set<String> recordOneByOne(
      PacketTransaction transaction, List<Outcome> outcomes, String owner, long nowMs)
      throws SQLException {
    int[] counts;
    try (PreparedStatement update =
        transaction
            .connection()
            .prepareStatement(
                "UPDATE ax_instance SET status = ?, finished_at_ms = ?, last_error = ?,"
                    + " lease_until_ms = NULL, updated_at_ms = ?"
                    + " WHERE instance_id = ? AND status = ? AND owner = ? AND attempt = ?")) {
      for (Outcome outcome : outcomes) {
        update.setString(1, outcome.status().name());
        update.setLong(2, outcome.finishedAtMs());
        update.setString(3, Sql.truncate(outcome.error(), MAX_ERROR_LENGTH));
        update.setLong(4, nowMs);
        update.setString(5, outcome.instanceId());
        update.setString(6, RUNNING.name());
        update.setString(7, owner);
        update.setInt(8, outcome.attempt());
        update.addBatch();
      }
      counts = update.executeBatch();
    }
    Set<String> won = new HashSet<>();
    List<AuditLog.Entry> audit = new ArrayList<>();
    List<Outcome> followed = new ArrayList<>();
    List<String> ended = new ArrayList<>();
    for (int i = 0; i < outcomes.size(); i++) {
      Outcome outcome = outcomes.get(i);
      if (counts[i] > 1) {
        throw new IllegalStateException(
            "outcome of " + outcome.instanceId() + " updated " + counts[i] + " rows");
      }
      if (counts[i] == 1) {
        won.add(runOf(outcome));
        audit.add(
            AuditLog.Entry.runEnded(
                outcome, outcome.error() == null ? "completed" : outcome.error()));
        if (outcome.after() != null) {
          followed.add(outcome);
        }
        if (outcome.status().isTerminal()) {
          ended.add(outcome.instanceId());
        }
      }
    }
    transaction.audit(audit, owner, nowMs);
    FailureFollowUps.record(transaction.connection(), followed, owner, nowMs);
    // A success recorded here may end its one-shot task (the batched ones end in their packet).
    OneShotEnd.endAfter(transaction.connection(), ended, nowMs);
    return won;
  }
}
