package dev.ax.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.model.Namespace;
import org.junit.jupiter.api.Test;

class NamespaceRateTest {

  private final Namespace billing = new Namespace("billing");
  private final Namespace shop = new Namespace("shop");

  @Test
  void aNamespaceOverItsRateWaitsUntilItsBucketRefillsOthersDoNot() {
    NamespaceRate rate = new NamespaceRate(100);
    rate.spend(billing, 99, 0);
    assertThat(rate.throttled(billing, 0)).isFalse();
    rate.spend(billing, 201, 0); // one batch overshoots: a debt of 200
    assertThat(rate.throttled(billing, 0)).isTrue();
    assertThat(rate.throttled(shop, 0)).isFalse();
    assertThat(rate.throttled(billing, 2_000)).as("200 owed at 100/s").isTrue();
    assertThat(rate.throttled(billing, 2_010)).isFalse();
  }

  @Test
  void theDefaultNamespaceAndARateOfZeroAreNeverThrottled() {
    NamespaceRate rate = new NamespaceRate(10);
    rate.spend(Namespace.DEFAULT, 1_000, 0);
    assertThat(rate.throttled(Namespace.DEFAULT, 0)).isFalse();
    NamespaceRate off = new NamespaceRate(0);
    off.spend(billing, 1_000_000, 0);
    assertThat(off.throttled(billing, 0)).isFalse();
  }

  @Test
  void aBucketHoldsAtMostOneSecondsWorth() {
    NamespaceRate rate = new NamespaceRate(100);
    rate.spend(billing, 1, 0);
    rate.spend(billing, 100, 3_600_000); // an hour idle saves no more than a second
    assertThat(rate.throttled(billing, 3_600_000)).isTrue();
  }
}
