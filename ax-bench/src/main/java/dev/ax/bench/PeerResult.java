package dev.ax.bench;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * One measured round of the peer, read from the {@code PEER key=value ...} line the peer JVM
 * (ax-bench-peer's {@code PeerOutcome}) prints: its counts, start lateness in ms (percentiles and
 * the whole histogram, to pool), completions per second from the first due time and the peer JVM's
 * CPU time. Immutable.
 */
public record PeerResult(
    String runId,
    int tasks,
    int completed,
    long early,
    long duplicates,
    Histogram lateness,
    double dueWindowPerSecond,
    long cpuMs)
    implements RoundFigures {

  private static final String PREFIX = "PEER ";
  private static final List<String> KEYS =
      List.of("run", "tasks", "completed", "early", "dup", "due_tput", "cpu_ms", "hist");

  /** Whether {@code line} is a result line (and not progress or an error). */
  public static boolean isResult(String line) {
    return line.startsWith(PREFIX);
  }

  /**
   * Reads a result line; keys it does not know are ignored.
   *
   * @throws IllegalArgumentException if the line is not one, or lacks a key or a readable value
   */
  public static PeerResult parse(String line) {
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
      return new PeerResult(
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

  @Override
  public long earlyStarts() {
    return early;
  }

  @Override
  public long startedTwice() {
    return duplicates;
  }

  @Override
  public long jvmCpuMs() {
    return cpuMs;
  }

  @Override
  public long missing() {
    return (long) tasks - completed;
  }

  /** The peer's own failures: what the same counts would make an AX run fail for. */
  public List<String> problems() {
    return new Problems()
        .count(missing(), "task(s) never started")
        .count(duplicates, "task(s) started twice")
        .count(early, "task(s) started before they were due")
        .list();
  }

  private static Histogram histogram(String base64) throws DataFormatException {
    ByteBuffer buffer = ByteBuffer.wrap(Base64.getDecoder().decode(base64));
    return Histogram.decodeFromCompressedByteBuffer(buffer, 0);
  }
}
