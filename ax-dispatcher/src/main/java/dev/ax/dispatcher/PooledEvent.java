package dev.ax.dispatcher;

import dev.ax.common.contract.TaskDueEvent;

/**
 * A due event as the intake hands it to the {@link ClaimLoop}: with the name of the pool it waits
 * for ({@link dev.ax.dispatcher.run.Bulkheads#poolFor}, or the retry pool). Immutable.
 */
record PooledEvent(String pool, TaskDueEvent event) {}
