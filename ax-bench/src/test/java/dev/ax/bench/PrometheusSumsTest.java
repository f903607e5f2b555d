package dev.ax.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class PrometheusSumsTest {

  private static final String TICKER =
      """
      # HELP ax_ticker_mark_seconds the fenced transaction that marks a batch DISPATCHED
      # TYPE ax_ticker_mark_seconds summary
      ax_ticker_mark_seconds_count{node="bench-ticker",stage="ticker"} 12
      ax_ticker_mark_seconds_sum{node="bench-ticker",stage="ticker"} 0.6
      ax_ticker_mark_seconds_max{node="bench-ticker",stage="ticker"} 0.2
      ax_ticker_mark_seconds_countless 99
      """;

  private static final String DISPATCHERS =
      """
      ax_dispatcher_claim_seconds_count{node="bench-dispatcher-1"} 3
      ax_dispatcher_claim_seconds_sum{node="bench-dispatcher-1"} 0.012
      ax_dispatcher_claim_seconds_count{node="bench-dispatcher-2"} 5
      ax_dispatcher_claim_seconds_sum{node="bench-dispatcher-2"} 0.020
      ax_dispatcher_claim_seconds_count{node="odd"} NaN
      ax_dispatcher_claim_seconds_count{node="broken"} many
      """;

  @Test
  void sumsEverySampleOfTheMetricWhateverItsLabels() {
    assertThat(PrometheusSums.sum(DISPATCHERS, "ax_dispatcher_claim_seconds_count")).isEqualTo(8);
  }

  @Test
  void skipsMetricsTheNameIsOnlyAPrefixOf() {
    assertThat(PrometheusSums.sum(TICKER, "ax_ticker_mark_seconds_count")).isEqualTo(12);
    assertThat(PrometheusSums.sum(TICKER, "ax_ticker_mark_seconds")).isZero();
  }

  @Test
  void anAbsentMetricSumsToZero() {
    assertThat(PrometheusSums.sum("", "ax_ticker_mark_seconds_count")).isZero();
  }

  @Test
  void readsTheTransactionTimesOfTickerAndDispatchers() {
    TransactionTimes times = PrometheusSums.transactionTimes(TICKER + DISPATCHERS);
    assertThat(times.marks()).isEqualTo(12);
    assertThat(times.markMeanMs()).isCloseTo(50.0, within(1e-9));
    assertThat(times.claims()).isEqualTo(8);
    assertThat(times.claimMeanMs()).isCloseTo(4.0, within(1e-9));
  }
}
