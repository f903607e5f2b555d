package dev.ax.dispatcher.executor.shell;

/**
 * A bounded byte sink: keeps either the first or the last {@code maxBytes} bytes appended and
 * counts the rest. The buffer grows with use up to {@code maxBytes}, so a quiet script costs little
 * even when the bound is large.
 *
 * <p>For {@link OutputDrain.Keep#TAIL} the buffer becomes a ring once full: {@code start} is the
 * oldest byte and new bytes overwrite from there. Until it is full, {@code start} stays 0 and the
 * bytes are contiguous, which is what lets the buffer grow by a plain copy.
 *
 * <p>Thread-safe: one reader thread appends while the executor may take a snapshot (when a stray
 * process keeps the stream open and the executor stops waiting for it).
 */
final class OutputCapture {

  private static final int INITIAL_BYTES = 4096;

  private final OutputDrain.Keep keep;
  private final int maxBytes;
  private byte[] buffer;
  private int size;
  private int start;
  private long totalBytes;

  OutputCapture(OutputDrain.Keep keep, int maxBytes) {
    if (maxBytes < 0) {
      throw new IllegalArgumentException("maxBytes must not be negative: " + maxBytes);
    }
    this.keep = keep;
    this.maxBytes = maxBytes;
    this.buffer = new byte[Math.min(maxBytes, INITIAL_BYTES)];
  }

  synchronized void append(byte[] chunk, int offset, int length) {
    totalBytes += length;
    if (maxBytes == 0 || length == 0) {
      return;
    }
    if (keep == OutputDrain.Keep.HEAD) {
      int take = Math.min(length, maxBytes - size);
      if (take > 0) {
        grow(size + take);
        System.arraycopy(chunk, offset, buffer, size, take);
        size += take;
      }
      return;
    }
    if (length >= maxBytes) {
      // Only the last maxBytes of this chunk survive.
      grow(maxBytes);
      System.arraycopy(chunk, offset + length - maxBytes, buffer, 0, maxBytes);
      size = maxBytes;
      start = 0;
      return;
    }
    grow(Math.min(maxBytes, size + length));
    int off = offset;
    int left = length;
    while (left > 0) {
      int n;
      if (size < maxBytes) {
        n = Math.min(left, maxBytes - size);
        System.arraycopy(chunk, off, buffer, size, n);
        size += n;
      } else {
        n = Math.min(left, maxBytes - start);
        System.arraycopy(chunk, off, buffer, start, n);
        start = (start + n) % maxBytes;
      }
      off += n;
      left -= n;
    }
  }

  synchronized CapturedOutput snapshot() {
    byte[] kept = new byte[size];
    int firstPart = size - start;
    System.arraycopy(buffer, start, kept, 0, firstPart);
    System.arraycopy(buffer, 0, kept, firstPart, start);
    return new CapturedOutput(kept, totalBytes);
  }

  private void grow(int needed) {
    if (needed > buffer.length) {
      byte[] bigger = new byte[Math.min(maxBytes, Math.max(needed, buffer.length * 2))];
      System.arraycopy(buffer, 0, bigger, 0, size);
      buffer = bigger;
    }
  }
}
