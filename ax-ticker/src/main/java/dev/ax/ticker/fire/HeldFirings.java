package dev.ax.ticker.fire;

import dev.ax.common.store.DueInstance;
import dev.ax.ticker.fire.FiringStore.FireResult;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The rows this leader holds for their task's buffering overlap policy: their hold was recorded and
 * their successors created, so their trigger side is not planned again while they wait. Each held
 * row is looked at again through the wheel until it moves; it leaves this set then, or when it is
 * found no longer SCHEDULED (cancelled, paused). Cleared with the wheel on a change of epoch: a new
 * leader plans a held row afresh, as a late row. So it holds at most what the wheel does. Used from
 * the tick loop's owner thread only.
 */
final class HeldFirings {

  private final Set<Long> held = new HashSet<>();
  private final Set<Long> view = Collections.unmodifiableSet(held);

  /** The held rows, as the planner reads them. */
  Set<Long> seqs() {
    return view;
  }

  /**
   * Forgets the held rows among {@code seqs} the read of {@code rows} found no longer SCHEDULED.
   */
  void forgetGone(List<Long> seqs, List<DueInstance> rows) {
    if (held.isEmpty()) {
      return;
    }
    Set<Long> found = new HashSet<>();
    rows.forEach(row -> found.add(row.seq()));
    seqs.stream().filter(seq -> !found.contains(seq)).forEach(held::remove);
  }

  /**
   * Records what a firing did: rows dispatched or skipped leave, rows whose hold was recorded join
   * (a planned hold that lost its race, the row paused or cancelled meanwhile, created no successor
   * and is not held).
   */
  void settled(FireResult result) {
    result.dispatched().forEach(row -> held.remove(row.seq()));
    result.skipped().forEach(row -> held.remove(row.seq()));
    result.held().forEach(row -> held.add(row.seq()));
  }

  void clear() {
    held.clear();
  }
}
