package dev.ax.bench.peer;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * One peer round's result, as the one {@code PEER ...} line the peer JVM prints for ax-bench:
 * counts, start lateness percentiles in ms, completions per second from the first due time, the
 * peer JVM's CPU time, and the whole lateness histogram (HdrHistogram's compressed form, Base64) so
 * that ax-bench can pool runs. Immutable.
 */
record PeerOutcome(
    String runId,
    int tasks,
    int completed,
    long early,
    long duplicates,
    Histogram lateness,
    double dueWindowPerSecond,
    long cpuMs) {

  /** The line ax-bench's {@code PeerResult} reads; keys after {@code hist} may be added. */
  String line() {
    ByteBuffer buffer = ByteBuffer.allocate(lateness.getNeededByteBufferCapacity());
    int length = lateness.encodeIntoCompressedByteBuffer(buffer);
    String histogram = Base64.getEncoder().encodeToString(Arrays.copyOf(buffer.array(), length));
    return String.format(
        Locale.ROOT,
        "PEER run=%s tasks=%d completed=%d missing=%d early=%d dup=%d p50=%d p99=%d max=%d"
            + " due_tput=%.0f cpu_ms=%d hist=%s",
        runId,
        tasks,
        completed,
        tasks - completed,
        early,
        duplicates,
        lateness.getValueAtPercentile(50),
        lateness.getValueAtPercentile(99),
        lateness.getMaxValue(),
        dueWindowPerSecond,
        cpuMs,
        histogram);
  }
}
