package dev.ax.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.bench.peer.PeerOutcome;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class RoundFiguresTest {

  @Test
  void thePeersLineReadsAsTheFiguresOfARound() {
    Histogram lateness = new Histogram(3);
    lateness.recordValueWithCount(12, 100);
    String line = new PeerOutcome("bench-x-peer", 101, 100, 2, 3, lateness, 1998, 4200).line();

    RoundFigures round = RoundFigures.of(PeerOutcome.parse(line));

    assertThat(round).isEqualTo(new RoundFigures(2, 3, 1, 1998, 4200));
    assertThat(round.problems())
        .containsExactly(
            "1 task(s) never started",
            "3 task(s) started twice",
            "2 task(s) started before they were due");
    assertThat(new RoundFigures(0, 0, 0, 1, 1).problems()).isEmpty();
  }

  @Test
  void ratiosAreAxOverPeerAndNeverDivideByZero() {
    assertThat(Percentiles.ratio(15, 30)).isEqualTo("0.50");
    assertThat(Percentiles.ratio(45, 30)).isEqualTo("1.50");
    assertThat(Percentiles.ratio(5, 0)).isEqualTo("-");
  }
}
