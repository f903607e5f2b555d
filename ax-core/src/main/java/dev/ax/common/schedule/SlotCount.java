package dev.ax.common.schedule;

/**
 * A number of slots, and whether it is the exact number or a lower bound (counting stopped at a
 * limit).
 */
public record SlotCount(long count, boolean exact) {

  public SlotCount {
    if (count < 0) {
      throw new IllegalArgumentException("count must not be negative: " + count);
    }
  }

  static SlotCount exactly(long count) {
    return new SlotCount(count, true);
  }
}
