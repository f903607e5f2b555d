package dev.ax.common.model;

import static dev.ax.common.model.InstanceStatus.CANCELLED;
import static dev.ax.common.model.InstanceStatus.DEAD;
import static dev.ax.common.model.InstanceStatus.DISPATCHED;
import static dev.ax.common.model.InstanceStatus.FAILED;
import static dev.ax.common.model.InstanceStatus.PAUSED;
import static dev.ax.common.model.InstanceStatus.RETRYING;
import static dev.ax.common.model.InstanceStatus.RUNNING;
import static dev.ax.common.model.InstanceStatus.SCHEDULED;
import static dev.ax.common.model.InstanceStatus.SKIPPED;
import static dev.ax.common.model.InstanceStatus.SUCCESS;
import static dev.ax.common.model.InstanceStatus.TIMEOUT;

import java.util.Set;

/**
 * The single table of allowed status transitions:
 *
 * <pre>
 * SCHEDULED ─► DISPATCHED ─► RUNNING ─► SUCCESS
 *     │            │            ├─► FAILED ──► RETRYING ─► DISPATCHED (next attempt)
 *     │            │            ├─► TIMEOUT ─► RETRYING        └─► DEAD (attempts exhausted)
 *     │            │            └─► (lease expired) ─► DISPATCHED (recovered by the reaper)
 *     │            │            └─► (claimed, never started) ─► DISPATCHED (released at a stop)
 *     └─► CANCELLED / SKIPPED (non-concurrent task still running)
 * </pre>
 *
 * FAILED and TIMEOUT may also go straight to DEAD (no attempts left, or retries switched off), and
 * SCHEDULED, DISPATCHED (before it is claimed), RETRYING and PAUSED (and RUNNING, when the command
 * says interrupt: its dispatcher then interrupts the attempt) are CANCELLED when their task is
 * cancelled; SCHEDULED and DISPATCHED are PAUSED when it is paused, and RETRYING when its backoff
 * ends while the task is paused (or CANCELLED if the task was cancelled meanwhile), and PAUSED is
 * SCHEDULED again (due when it was) when it is resumed; SCHEDULED stays SCHEDULED, recorded, when
 * the ticker holds a due firing for its task's buffering overlap policy, and a run in flight is
 * CANCELLED by its task's next firing under CANCEL_OTHER; an operator's requeue makes DISPATCHED
 * SCHEDULED again for a fresh firing; DISPATCHED may also be DISPATCHED again when the reaper
 * re-emits an instance nobody claimed in time (recorded like any other move). A run whose lease
 * expired after its instance was taken back {@code AX_MAX_TAKEBACKS} times goes RUNNING → FAILED →
 * DEAD instead (recorded by the reaper). A run whose lease expired while its task is paused is
 * taken back to PAUSED (RUNNING → PAUSED), and to CANCELLED when its task is cancelled or deleted.
 * DEAD goes back to DISPATCHED only when an operator replays its dead letter (with a fresh retry
 * budget), or to PAUSED when the task is paused then (a RESUME fires it, as any paused instance).
 * The store checks every transition here before it writes the conditional UPDATE, so a bug that
 * asks for a move outside the table fails loudly.
 */
public final class StatusTransitions {

  private static final Transitions<InstanceStatus> MOVES =
      new Transitions<>(InstanceStatus.class, "transition")
          .allow(SCHEDULED, DISPATCHED, CANCELLED, SKIPPED, PAUSED, SCHEDULED)
          .allow(DISPATCHED, RUNNING, CANCELLED, DISPATCHED, PAUSED, SCHEDULED)
          .allow(RUNNING, SUCCESS, FAILED, TIMEOUT, DISPATCHED, CANCELLED, PAUSED)
          .allow(FAILED, RETRYING, DEAD)
          .allow(TIMEOUT, RETRYING, DEAD)
          .allow(RETRYING, DISPATCHED, DEAD, CANCELLED, PAUSED)
          .allow(DEAD, DISPATCHED, PAUSED)
          .allow(PAUSED, SCHEDULED, CANCELLED, SKIPPED);

  private StatusTransitions() {}

  public static boolean isAllowed(InstanceStatus from, InstanceStatus to) {
    return MOVES.isAllowed(from, to);
  }

  public static Set<InstanceStatus> allowedFrom(InstanceStatus from) {
    return MOVES.allowedFrom(from);
  }

  /**
   * @throws IllegalStateException if {@code from -> to} is not in the table: a bug, not a lost race
   */
  public static void require(InstanceStatus from, InstanceStatus to) {
    MOVES.require(from, to);
  }
}
