package dev.ax.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class TransactionTimesTest {

  private final MeterRegistry meters = new SimpleMeterRegistry();

  @Test
  void countsOnlyTheTransactionsBetweenTwoSnapshots() {
    Timer mark = meters.timer("ax.ticker.mark");
    Timer claim = meters.timer("ax.dispatcher.claim");
    mark.record(Duration.ofMillis(100));
    claim.record(Duration.ofMillis(100));
    TransactionTimes before = TransactionTimes.snapshot(meters);

    mark.record(Duration.ofMillis(2));
    mark.record(Duration.ofMillis(4));
    claim.record(Duration.ofMillis(5));
    TransactionTimes run = TransactionTimes.snapshot(meters).since(before);

    assertThat(run.marks()).isEqualTo(2);
    assertThat(run.markMeanMs()).isCloseTo(3.0, within(0.001));
    assertThat(run.claims()).isEqualTo(1);
    assertThat(run.claimMeanMs()).isCloseTo(5.0, within(0.001));
  }

  @Test
  void timersNotRegisteredCountAsNoTransactions() {
    TransactionTimes none = TransactionTimes.snapshot(meters);

    assertThat(none.marks()).isZero();
    assertThat(none.markMeanMs()).isZero();
    assertThat(none.claimMeanMs()).isZero();
  }
}
