package dev.ax.api.read;

import dev.ax.common.store.BackfillStore.Backfill;
import java.time.Instant;

/**
 * A backfill as the API, {@code ax task backfills --json} and the console show it: its range and
 * overlap, where it stands, and its progress. Times are ISO-8601 instants.
 *
 * @param firings the slots its range held when it was accepted
 * @param created firings created so far (SKIPPED ones included)
 * @param skipped of those, recorded SKIPPED (overlap SKIP)
 * @param existing slots passed over: a firing of the slot existed already (the schedule's own, or a
 *     backfill's)
 * @param remaining slots still to handle
 * @param handledThrough every slot up to this instant is handled
 */
public record BackfillView(
    String backfillId,
    String taskId,
    String from,
    String to,
    String overlap,
    String state,
    long firings,
    long created,
    long skipped,
    long existing,
    long remaining,
    String handledThrough,
    String requestedBy,
    String requestedAt,
    String reason,
    String endedReason) {

  public static BackfillView of(Backfill b) {
    return new BackfillView(
        b.backfillId(),
        b.taskId(),
        iso(b.fromMs()),
        iso(b.toMs()),
        b.overlap().name(),
        b.state().name(),
        b.total(),
        b.created(),
        b.skipped(),
        b.existing(),
        Math.max(0, b.total() - b.handled()),
        b.cursorMs() < b.fromMs() ? null : iso(b.cursorMs()),
        b.requestedBy(),
        iso(b.requestedAtMs()),
        b.reason(),
        b.endedReason());
  }

  private static String iso(long ms) {
    return Instant.ofEpochMilli(ms).toString();
  }
}
