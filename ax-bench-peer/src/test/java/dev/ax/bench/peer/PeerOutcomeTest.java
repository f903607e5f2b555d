package dev.ax.bench.peer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class PeerOutcomeTest {

  private static Histogram lateness() {
    Histogram lateness = new Histogram(3);
    lateness.recordValueWithCount(12, 95);
    lateness.recordValueWithCount(80, 5);
    return lateness;
  }

  @Test
  void theLineThePeerWritesReadsBackAsTheSameOutcome() {
    PeerOutcome written = new PeerOutcome("bench-x-peer", 101, 100, 2, 3, lateness(), 1998, 4200);

    PeerOutcome read = PeerOutcome.parse(written.line());

    assertThat(read.runId()).isEqualTo("bench-x-peer");
    assertThat(read.tasks()).isEqualTo(101);
    assertThat(read.completed()).isEqualTo(100);
    assertThat(read.early()).isEqualTo(2);
    assertThat(read.duplicates()).isEqualTo(3);
    assertThat(read.dueWindowPerSecond()).isEqualTo(1998.0);
    assertThat(read.cpuMs()).isEqualTo(4200);
    assertThat(read.lateness()).isEqualTo(written.lateness());
    assertThat(written.line()).contains(" missing=1 ", " p50=12 ", " p99=80 ", " max=80 ");
  }

  @Test
  void keysAfterTheHistogramAreIgnored() {
    PeerOutcome written = new PeerOutcome("r", 1, 1, 0, 0, lateness(), 5, 7);

    assertThat(PeerOutcome.parse(written.line() + " later_key=7").lateness().getTotalCount())
        .isEqualTo(100);
  }

  @Test
  void refusesWhatIsNotAResultLine() {
    assertThat(PeerOutcome.isResult("peer warm-up round 1: ...")).isFalse();
    assertThatThrownBy(() -> PeerOutcome.parse("peer warm-up round 1: ..."))
        .hasMessageContaining("not a PEER line");
    assertThatThrownBy(() -> PeerOutcome.parse("PEER run=x tasks=1"))
        .hasMessageContaining("without completed");
    assertThatThrownBy(
            () ->
                PeerOutcome.parse(
                    "PEER run=x tasks=one completed=1 early=0 dup=0 due_tput=1 cpu_ms=1 hist=AA"))
        .hasMessageContaining("unreadable");
  }
}
