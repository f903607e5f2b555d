package dev.ax.retry;

/** A pending retry as the wheel holds it: its row key and when its next attempt is due. */
record HeldRetry(long seq, long atMs) {}
