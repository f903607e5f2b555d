package dev.ax.common.wheel;

/** Sizes for {@link TimingWheel#estimatedHeapBytes()}: a 64-bit JVM with compressed oops. */
final class HeapSizes {

  /** Object header plus length of an array, rounded up to the 8-byte alignment. */
  static final int ARRAY_HEADER_BYTES = 16;

  private HeapSizes() {}
}
