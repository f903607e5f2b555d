package dev.ax.common.model;

/**
 * Where a dead letter stands, with the single table of its moves; every statement that writes
 * {@code ax_dead_letter.state} mirrors a move of the table with {@code WHERE state = ...} and
 * checks it here first:
 *
 * <pre>
 * (stored) OPEN ── replay ──► REPLAYED ── dead again ──► OPEN
 *            └──── discard ─► DISCARDED
 * </pre>
 *
 * A replayed instance that dies again reopens its letter (REPLAYED → OPEN, with the new attempts);
 * DISCARDED is final, and retention removes the letter with its instance.
 *
 * <p>Immutable; thread-safe.
 */
public enum DeadLetterState {
  /** Waits for an operator: replay or discard. */
  OPEN,
  /** Its instance runs again (with a fresh retry budget). */
  REPLAYED,
  /** An operator gave it up; its instance stays DEAD. */
  DISCARDED;

  /** DISCARDED is final: it has no moves. */
  static final Transitions<DeadLetterState> MOVES =
      new Transitions<>(DeadLetterState.class, "dead letter state move")
          .allow(OPEN, REPLAYED, DISCARDED)
          .allow(REPLAYED, OPEN);

  /**
   * @throws IllegalStateException if {@code from -> to} is not in the table: a bug, not a lost race
   */
  public static void require(DeadLetterState from, DeadLetterState to) {
    MOVES.require(from, to);
  }
}
