package dev.ax.api.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ClientRateTest {

  @Test
  void eachClientGetsItsOwnRequestsPerSecond() {
    AtomicLong nanos = new AtomicLong(5_000_000_000L);
    ClientRate rate = new ClientRate(3, nanos::get);
    for (int i = 0; i < 3; i++) {
      assertThat(rate.admit("10.0.0.1")).as("request %d", i).isTrue();
    }
    assertThat(rate.admit("10.0.0.1")).as("the fourth in the same second").isFalse();
    assertThat(rate.admit("10.0.0.2")).as("another client").isTrue();

    nanos.addAndGet(999_999_999L);
    assertThat(rate.admit("10.0.0.1")).as("still the same second").isFalse();
    nanos.addAndGet(1L);
    assertThat(rate.admit("10.0.0.1")).as("the next second").isTrue();
  }
}
