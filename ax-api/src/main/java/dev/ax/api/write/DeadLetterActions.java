package dev.ax.api.write;

import dev.ax.api.audit.OperatorLog;
import dev.ax.deadletter.DeadLetterReplayer;
import dev.ax.deadletter.DeadLetterStore;
import dev.ax.deadletter.DeadLetterStore.ReplayResult;
import java.util.function.LongSupplier;

/**
 * Replaying and discarding one dead letter, the same from {@code ax dlq} and the API: through the
 * dead-letter stage's replayer, audited in {@code ax_operator_log} under the operator's name when
 * something changed. Thread-safe, like the store, replayer and log it uses.
 */
public final class DeadLetterActions {

  /** What a discard did. */
  public enum DiscardResult {
    DISCARDED,
    NOT_FOUND,
    /** Replayed or discarded before. */
    NOT_OPEN
  }

  private final DeadLetterStore letters;
  private final DeadLetterReplayer replayer;
  private final OperatorLog log;
  private final LongSupplier clockMs;

  public DeadLetterActions(
      DeadLetterStore letters, DeadLetterReplayer replayer, OperatorLog log, LongSupplier clockMs) {
    this.letters = letters;
    this.replayer = replayer;
    this.log = log;
    this.clockMs = clockMs;
  }

  /**
   * Replays letter {@code id} by {@code operator} for {@code reason}; {@code force} replays a
   * letter whose task is CANCELLED or DELETED.
   */
  public ReplayResult replay(long id, String operator, String reason, boolean force)
      throws InterruptedException {
    ReplayResult result =
        replayer.replay(id, "ax dlq (" + operator + ")", reason, clockMs.getAsLong(), force);
    if (result.replayed()) {
      log.record(operator, "dlq replay", "dead letter " + id, reason, clockMs.getAsLong());
    }
    return result;
  }

  /** Closes open letter {@code id} without running it, by {@code operator} for {@code reason}. */
  public DiscardResult discard(long id, String operator, String reason) {
    if (letters.find(id).isEmpty()) {
      return DiscardResult.NOT_FOUND;
    }
    if (!letters.discard(id, reason + " (by " + operator + ")", clockMs.getAsLong())) {
      return DiscardResult.NOT_OPEN;
    }
    log.record(operator, "dlq discard", "dead letter " + id, reason, clockMs.getAsLong());
    return DiscardResult.DISCARDED;
  }

  /**
   * What {@code result} of replaying letter {@code id} means, in a sentence; {@code force} is how
   * the caller spells the override ({@code --force}, {@code force}).
   */
  public String describe(ReplayResult result, long id, String force) {
    return switch (result) {
      case REPLAYED -> "replayed";
      case REPLAYED_PAUSED ->
          "replayed; its task is PAUSED, so the instance waits PAUSED and runs when the task is"
              + " resumed";
      case NOT_FOUND -> "no such dead letter";
      case NOT_OPEN -> "not open (replayed or discarded before): nothing runs";
      case INSTANCE_NOT_DEAD -> "its instance is no longer DEAD: nothing runs";
      case TASK_STOPPED ->
          "refused: its task is "
              + letters.taskStateOf(id).orElse("gone")
              + ", so nothing runs and the letter stays OPEN ("
              + force
              + " replays it anyway)";
    };
  }
}
