package dev.ax.ticker.fire;

/**
 * What the loader and the announcements hand to the tick loop: a row key, its due time, its group.
 */
public record WheelEntry(long seq, long dueAtMs, String triggerGroup) {}
