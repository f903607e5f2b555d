package dev.ax.dispatcher.executor.shell;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * What was kept of one output stream of a script: at most the configured number of bytes, plus how
 * many bytes the script wrote in all. Immutable.
 */
public final class CapturedOutput {

  /** Nothing written, nothing kept: for a script that never started. */
  public static final CapturedOutput EMPTY = new CapturedOutput(new byte[0], 0);

  private final byte[] bytes;
  private final long totalBytes;

  CapturedOutput(byte[] bytes, long totalBytes) {
    this.bytes = bytes;
    this.totalBytes = totalBytes;
  }

  /** A copy of the kept bytes. */
  public byte[] bytes() {
    return Arrays.copyOf(bytes, bytes.length);
  }

  /** How many bytes were kept. */
  public int keptBytes() {
    return bytes.length;
  }

  /** How many bytes the script wrote to the stream, kept or not. */
  public long totalBytes() {
    return totalBytes;
  }

  /** True when the script wrote more than was kept. */
  public boolean truncated() {
    return totalBytes > bytes.length;
  }

  /**
   * The kept bytes as UTF-8; malformed input (including a character cut in half at the edge of what
   * was kept) becomes U+FFFD.
   */
  public String text() {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return "CapturedOutput[kept=" + bytes.length + ", total=" + totalBytes + "]";
  }
}
