package dev.ax.common.store;

import java.util.List;
import java.util.Map;

/**
 * What storing a list of new tasks did.
 *
 * @param outcomes one per task, in order
 * @param seqByInstanceId the numeric key of each first instance that was created
 */
public record CreateResult(List<CreateOutcome> outcomes, Map<String, Long> seqByInstanceId) {}
