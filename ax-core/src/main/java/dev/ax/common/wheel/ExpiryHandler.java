package dev.ax.common.wheel;

/**
 * Receives the batches that {@link TimingWheel#advanceTo} expires: one call per (group, due time).
 *
 * <p>The ids are in a buffer that the wheel owns and reuses: only {@code instanceIds[0, count)} is
 * the batch, and only during the call. Copy them if they must outlive it. They come in no
 * particular order.
 *
 * <p>The handler runs on the owning thread, inside {@code advanceTo}. It may call {@link
 * TimingWheel#add}, {@link TimingWheel#remove} and the read-only methods; {@code advanceTo}, {@code
 * clear} and {@code drain} throw {@link IllegalStateException} there. When it throws, the exception
 * leaves {@code advanceTo}; the batch it was given is no longer pending, everything else is intact.
 */
@FunctionalInterface
public interface ExpiryHandler {

  /**
   * @param groupId the trigger group all ids share
   * @param dueAtMs the due time all ids share; at or before the time advanced to
   * @param instanceIds the wheel's buffer; the batch is {@code instanceIds[0, count)}
   * @param count the number of ids in the batch, at least 1
   */
  void onExpired(int groupId, long dueAtMs, long[] instanceIds, int count);
}
