package dev.ax.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class PeerResultTest {

  /** The histogram as ax-bench-peer's PeerOutcome writes it: compressed, then Base64. */
  private static String encoded(Histogram histogram) {
    ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
    int length = histogram.encodeIntoCompressedByteBuffer(buffer);
    return Base64.getEncoder().encodeToString(Arrays.copyOf(buffer.array(), length));
  }

  @Test
  void readsThePeersLineWithItsHistogram() {
    Histogram lateness = new Histogram(3);
    lateness.recordValueWithCount(12, 95);
    lateness.recordValueWithCount(80, 5);
    String line =
        "PEER run=bench-x-peer tasks=101 completed=100 missing=1 early=2 dup=3 p50=12 p99=80"
            + " max=80 due_tput=1998 cpu_ms=4200 hist="
            + encoded(lateness)
            + " later_key=7";

    PeerResult result = PeerResult.parse(line);

    assertThat(result.runId()).isEqualTo("bench-x-peer");
    assertThat(result.missing()).isEqualTo(1);
    assertThat(result.dueWindowPerSecond()).isEqualTo(1998.0);
    assertThat(result.cpuMs()).isEqualTo(4200);
    assertThat(result.lateness().getTotalCount()).isEqualTo(100);
    assertThat(result.lateness().getValueAtPercentile(99)).isEqualTo(80);
    assertThat(result.problems())
        .containsExactly(
            "1 task(s) never started",
            "3 task(s) started twice",
            "2 task(s) started before they were due");
  }

  @Test
  void refusesWhatIsNotAResultLine() {
    assertThatThrownBy(() -> PeerResult.parse("peer warm-up round 1: ..."))
        .hasMessageContaining("not a PEER line");
    assertThatThrownBy(() -> PeerResult.parse("PEER run=x tasks=1"))
        .hasMessageContaining("without completed");
    assertThatThrownBy(
            () ->
                PeerResult.parse(
                    "PEER run=x tasks=one completed=1 early=0 dup=0 due_tput=1 cpu_ms=1 hist=AA"))
        .hasMessageContaining("unreadable");
  }

  @Test
  void ratiosAreAxOverPeerAndNeverDivideByZero() {
    assertThat(Percentiles.ratio(15, 30)).isEqualTo("0.50");
    assertThat(Percentiles.ratio(45, 30)).isEqualTo("1.50");
    assertThat(Percentiles.ratio(5, 0)).isEqualTo("-");
  }
}
