package dev.ax.common.model;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

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

  private static final Map<DeadLetterState, Set<DeadLetterState>> ALLOWED =
      new EnumMap<>(DeadLetterState.class);

  static {
    ALLOWED.put(OPEN, EnumSet.of(REPLAYED, DISCARDED));
    ALLOWED.put(REPLAYED, EnumSet.of(OPEN));
    ALLOWED.put(DISCARDED, EnumSet.noneOf(DeadLetterState.class));
  }

  /** True when {@code this -> to} is in the table. */
  public boolean canMoveTo(DeadLetterState to) {
    return ALLOWED.get(this).contains(to);
  }

  /** The states this one may move to. */
  public Set<DeadLetterState> allowedMoves() {
    return EnumSet.copyOf(ALLOWED.get(this));
  }

  /**
   * @throws IllegalStateException if {@code from -> to} is not in the table: a bug, not a lost race
   */
  public static void require(DeadLetterState from, DeadLetterState to) {
    if (!from.canMoveTo(to)) {
      throw new IllegalStateException(
          "dead letter state move not in the table: " + from + " -> " + to);
    }
  }
}
