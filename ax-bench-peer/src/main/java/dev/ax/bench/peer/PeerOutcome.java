package dev.ax.bench.peer;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * One peer round's result, and the one {@code PEER key=value ...} line that carries it from the
 * peer JVM to ax-bench: both ends of that line are here, {@link #line} written by the peer and
 * {@link #parse} read by ax-bench. Counts, start lateness in ms (percentiles, and the whole
 * histogram in HdrHistogram's compressed form, Base64, so that ax-bench can pool runs), completions
 * per second from the first due time, and the peer JVM's CPU time. Immutable.
 */
public record PeerOutcome(
    String runId,
    int tasks,
    int completed,
    long early,
    long duplicates,
    Histogram lateness,
    double dueWindowPerSecond,
    long cpuMs) {

  private static final String PREFIX = "PEER ";

  /** The keys {@link #parse} needs; the line has more (percentiles, for a reader's eye). */
  private static final List<String> KEYS =
      List.of("run", "tasks", "completed", "early", "dup", "due_tput", "cpu_ms", "hist");

  /** The line {@link #parse} reads; keys after {@code hist} may be added. */
  public String line() {
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

  /** Whether {@code line} is a result line (and not progress or an error). */
  public static boolean isResult(String line) {
    return line.startsWith(PREFIX);
  }

  /**
   * Reads a result line; keys it does not know are ignored.
   *
   * @throws IllegalArgumentException if the line is not one, or lacks a key or a readable value
   */
  public static PeerOutcome parse(String line) {
    if (!isResult(line)) {
      throw new IllegalArgumentException("not a PEER line: " + line);
    }
    Map<String, String> values = new HashMap<>();
    for (String pair : line.substring(PREFIX.length()).trim().split(" ")) {
      int equals = pair.indexOf('=');
      if (equals > 0) {
        values.put(pair.substring(0, equals), pair.substring(equals + 1));
      }
    }
    for (String key : KEYS) {
      if (!values.containsKey(key)) {
        throw new IllegalArgumentException("PEER line without " + key + ": " + line);
      }
    }
    try {
      return new PeerOutcome(
          values.get("run"),
          Integer.parseInt(values.get("tasks")),
          Integer.parseInt(values.get("completed")),
          Long.parseLong(values.get("early")),
          Long.parseLong(values.get("dup")),
          histogram(values.get("hist")),
          Double.parseDouble(values.get("due_tput")),
          Long.parseLong(values.get("cpu_ms")));
    } catch (NumberFormatException | DataFormatException e) {
      throw new IllegalArgumentException("unreadable PEER line: " + line, e);
    }
  }

  private static Histogram histogram(String base64) throws DataFormatException {
    ByteBuffer buffer = ByteBuffer.wrap(Base64.getDecoder().decode(base64));
    return Histogram.decodeFromCompressedByteBuffer(buffer, 0);
  }
}
