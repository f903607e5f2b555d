/**
 * The ticker's timing wheel: pending instance ids by due time, fired in batches per trigger group
 * and due time. {@link dev.ax.common.wheel.TimingWheel} is the only entry point; the node pool, the
 * id index and the ready queue are its package-private parts.
 */
package dev.ax.common.wheel;
