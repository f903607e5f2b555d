package dev.ax.common.store;

/**
 * One attempt of one instance as {@code ax task runs} shows it: how it ended, when, and what it
 * said. Immutable.
 *
 * @param status SUCCESS, FAILED or TIMEOUT once ended (or what took the run back), RUNNING while it
 *     runs
 * @param startedAtMs when it was claimed to run, null if its claim row is gone
 * @param finishedAtMs when its end was recorded (the run's own finish when it stored output), null
 *     while it runs
 * @param durationMs finished minus started, null unless both are known
 * @param error the one-line error recorded for a failure, null for a success
 * @param output the stored excerpt of what it said (masked, bounded), null when it said nothing
 */
public record TaskRun(
    String instanceId,
    int attempt,
    String status,
    Long startedAtMs,
    Long finishedAtMs,
    Long durationMs,
    String error,
    String output) {}
