package dev.ax.dispatcher.executor.shell;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The bounded sink behind each output stream, against a plain reference: keep all, then cut. */
class OutputCaptureTest {

  @Test
  void headKeepsTheFirstBytesAndCountsTheRest() {
    OutputCapture capture = new OutputCapture(OutputDrain.Keep.HEAD, 5);
    capture.append("abc".getBytes(), 0, 3);
    capture.append("defgh".getBytes(), 0, 5);

    CapturedOutput out = capture.snapshot();
    assertThat(out.text()).isEqualTo("abcde");
    assertThat(out.totalBytes()).isEqualTo(8);
    assertThat(out.truncated()).isTrue();
  }

  @Test
  void tailKeepsTheLastBytesAcrossTheRing() {
    OutputCapture capture = new OutputCapture(OutputDrain.Keep.TAIL, 5);
    capture.append("abc".getBytes(), 0, 3);
    capture.append("defgh".getBytes(), 0, 5);
    capture.append("ij".getBytes(), 0, 2);

    assertThat(capture.snapshot().text()).isEqualTo("fghij");
    capture.append("0123456789".getBytes(), 2, 7); // longer than the bound, from an offset
    assertThat(capture.snapshot().text()).isEqualTo("45678");
  }

  @Test
  void aZeroBoundKeepsNothingButStillCounts() {
    OutputCapture capture = new OutputCapture(OutputDrain.Keep.TAIL, 0);
    capture.append(new byte[100], 0, 100);

    assertThat(capture.snapshot().keptBytes()).isZero();
    assertThat(capture.snapshot().totalBytes()).isEqualTo(100);
  }

  @Test
  void randomChunksMatchTheReference() {
    Random random = new Random(42);
    for (int round = 0; round < 500; round++) {
      int max = random.nextInt(20_000);
      OutputDrain.Keep keep = random.nextBoolean() ? OutputDrain.Keep.HEAD : OutputDrain.Keep.TAIL;
      OutputCapture capture = new OutputCapture(keep, max);
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      int chunks = random.nextInt(30);
      for (int c = 0; c < chunks; c++) {
        byte[] chunk = new byte[random.nextInt(9_000)];
        random.nextBytes(chunk);
        int off = chunk.length == 0 ? 0 : random.nextInt(chunk.length);
        int len = random.nextInt(chunk.length - off + 1);
        capture.append(chunk, off, len);
        all.write(chunk, off, len);
      }
      byte[] everything = all.toByteArray();
      int kept = Math.min(max, everything.length);
      byte[] expected =
          keep == OutputDrain.Keep.HEAD
              ? Arrays.copyOf(everything, kept)
              : Arrays.copyOfRange(everything, everything.length - kept, everything.length);
      CapturedOutput out = capture.snapshot();
      assertThat(out.bytes()).as("round %d, %s, max %d", round, keep, max).isEqualTo(expected);
      assertThat(out.totalBytes()).isEqualTo(everything.length);
    }
  }
}
