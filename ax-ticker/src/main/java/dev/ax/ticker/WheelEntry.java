package dev.ax.ticker;

/**
 * What the loader and the announcements hand to the tick loop: a row key, its due time, its group.
 */
record WheelEntry(long seq, long dueAtMs, String triggerGroup) {}
