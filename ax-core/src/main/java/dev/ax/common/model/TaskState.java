package dev.ax.common.model;

/**
 * Where a task stands, with the single table of the moves between states. Every statement that
 * writes {@code ax_task.state} mirrors a move of the table (a conditional {@code WHERE state = ...}
 * or a state read under the task's lock), and checks it here first, as the instance stores do with
 * {@link StatusTransitions}:
 *
 * <pre>
 *            ┌──── RESUME ────┐
 *            ▼                │
 * (create) ACTIVE ── PAUSE ─► PAUSED
 *            │  ▲             │
 *  last run  │  │ replay,     │ CANCEL / DELETE
 *  of a ONCE ▼  │ RUN_NOW,    ▼
 *  task     ENDED  UPDATE   CANCELLED ── DELETE ─► DELETED
 * </pre>
 *
 * ACTIVE, PAUSED and ENDED may each be CANCELLED or DELETED; CANCELLED may still be DELETED;
 * DELETED takes no further command. ENDED is the state of a ONCE task whose every instance is
 * terminal (written only by {@code OneShotEnd}, from ACTIVE); a PAUSED one-shot task whose run
 * ended meanwhile goes ACTIVE at its RESUME and ENDED in the same transaction. A command that
 * applies again to a task already in its target state (a CANCEL or DELETE that interrupts what the
 * first left running) rewrites the same state: that is not a move and needs no entry.
 *
 * <p>Immutable; thread-safe.
 */
public enum TaskState {
  /** Fires and runs. The state of a new task. */
  ACTIVE,
  /** Fires nothing; its pending instances wait PAUSED for a RESUME. */
  PAUSED,
  /** Fires no more; kept, and may still be deleted. */
  CANCELLED,
  /** Cancelled and gone for every purpose but show and history; retention removes its row. */
  DELETED,
  /** A ONCE task whose run is over; a replay, a RUN_NOW or an UPDATE makes it ACTIVE again. */
  ENDED;

  /** DELETED is final: it has no moves. */
  static final Transitions<TaskState> MOVES =
      new Transitions<>(TaskState.class, "task state move")
          .allow(ACTIVE, PAUSED, CANCELLED, DELETED, ENDED)
          .allow(PAUSED, ACTIVE, CANCELLED, DELETED)
          .allow(CANCELLED, DELETED)
          .allow(ENDED, ACTIVE, CANCELLED, DELETED);

  /**
   * @throws IllegalStateException if {@code from -> to} is not in the table: a bug, not a lost race
   */
  public static void require(TaskState from, TaskState to) {
    MOVES.require(from, to);
  }

  /** ACTIVE or PAUSED: the task holds a place in its group (counted against the group's limit). */
  public boolean isLive() {
    return this == ACTIVE || this == PAUSED;
  }

  /** CANCELLED or DELETED: stopped by an operator; neither comes back. */
  public boolean isStopped() {
    return this == CANCELLED || this == DELETED;
  }

  /** DELETED or ENDED: retention removes the task's row once its instances are gone. */
  public boolean isRemovable() {
    return this == DELETED || this == ENDED;
  }
}
