package dev.ax.retry;

import java.util.List;

/**
 * What the {@link RetryPlanner} lets go in one step.
 *
 * @param batch the seqs to move RETRYING → DISPATCHED now, oldest ready first
 * @param heldBack ready retries the quota keeps waiting (shown by a gauge)
 */
record DispatchPlan(List<Long> batch, int heldBack) {}
