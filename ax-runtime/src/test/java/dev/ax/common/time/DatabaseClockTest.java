package dev.ax.common.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The clock rules with a fake database clock and fake monotonic nanos: no wall clock involved. */
class DatabaseClockTest {

  private static final long MS = 1_000_000L;

  private final AtomicLong nanos = new AtomicLong(5_000 * MS);
  private final AtomicLong databaseMs = new AtomicLong(1_000_000);

  private DatabaseClock clock() {
    return new DatabaseClock(databaseMs::get, nanos::get, Duration.ofMillis(500));
  }

  /** Real time passes: both the database and the monotonic clock move. */
  private void elapse(long ms) {
    nanos.addAndGet(ms * MS);
    databaseMs.addAndGet(ms);
  }

  @Test
  void followsTheDatabaseThroughTheMonotonicClock() {
    DatabaseClock clock = clock();

    elapse(1234);

    assertThat(clock.millis()).isEqualTo(1_001_234);
    assertThat(clock.isStable()).isTrue();
  }

  @Test
  void aBackwardStepNeitherMovesTheClockBackNorHoldsItStill() {
    DatabaseClock clock = clock();
    elapse(10_000);
    long before = clock.millis();

    databaseMs.addAndGet(-5_000); // the database clock steps back 5 s
    clock.reanchor();

    assertThat(clock.isStable()).isFalse();
    assertThat(clock.millis()).isEqualTo(before);
    elapse(1_000);
    clock.reanchor(); // agrees with the stepped reading: confirmed
    assertThat(clock.isStable()).isTrue();
    assertThat(clock.millis()).as("goes on at real speed").isEqualTo(before + 1_000);
    assertThat(clock.heldMs()).isEqualTo(5_000);
    elapse(3_500);
    clock.reanchor(); // on the held time line: no skew
    assertThat(clock.isStable()).isTrue();
    assertThat(clock.millis()).isEqualTo(before + 4_500);
  }

  @Test
  void aForwardStepTakesBackWhatABackwardStepHeld() {
    DatabaseClock clock = clock();
    elapse(1_000);
    databaseMs.addAndGet(-5_000);
    clock.reanchor();
    elapse(1_000);
    clock.reanchor();
    long before = clock.millis();

    databaseMs.addAndGet(8_000); // back to the old server, and 3 s beyond
    clock.reanchor();
    elapse(1_000);
    clock.reanchor();

    assertThat(clock.isStable()).isTrue();
    assertThat(clock.heldMs()).isZero();
    assertThat(clock.millis()).as("only the 3 s beyond the held 5 s").isEqualTo(before + 4_000);
  }

  @Test
  void aForwardStepIsNotTrustedUntilConfirmed() {
    DatabaseClock clock = clock();
    elapse(1_000);
    long before = clock.millis();

    databaseMs.addAndGet(60_000); // the database clock jumps a minute ahead
    clock.reanchor();

    assertThat(clock.isStable()).isFalse();
    assertThat(clock.millis()).as("the jump is not adopted on one reading").isEqualTo(before);
    elapse(1_000);
    clock.reanchor();
    assertThat(clock.isStable()).isTrue();
    assertThat(clock.millis()).isEqualTo(before + 61_000);
  }

  @Test
  void smallDriftIsAdoptedSilently() {
    DatabaseClock clock = clock();
    elapse(30_000);
    databaseMs.addAndGet(120); // 120 ms drift over 30 s

    clock.reanchor();

    assertThat(clock.isStable()).isTrue();
    assertThat(clock.lastSkewMs()).isEqualTo(120);
    assertThat(clock.millis()).isEqualTo(1_030_120);
  }

  @Test
  void aWallClockStepChangesNothing() {
    DatabaseClock clock = clock();
    elapse(500);

    // Nothing here reads System.currentTimeMillis: only the fake nanos and database move.
    assertThat(clock.millis()).isEqualTo(1_000_500);
  }

  @Test
  void theFirstReadingMustSucceed() {
    assertThatThrownBy(
            () ->
                new DatabaseClock(
                    () -> {
                      throw new SQLException("down");
                    },
                    nanos::get,
                    Duration.ofMillis(500)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("down");
  }

  @Test
  void aSlowReadingIsNoEvidenceOfSkew() {
    AtomicLong readMs = new AtomicLong(0);
    DatabaseClock clock =
        new DatabaseClock(
            () -> {
              // The reading takes readMs of monotonic time, and the database answers at its end.
              nanos.addAndGet(readMs.get() * MS);
              databaseMs.addAndGet(readMs.get());
              return databaseMs.get();
            },
            nanos::get,
            Duration.ofMillis(500));
    elapse(1_000);
    long before = clock.millis();

    readMs.set(4_000); // as a read stuck behind a pool wait would look, measured from outside
    clock.reanchor();

    assertThat(clock.isStable()).as("a 4 s round trip is not a 2 s skew").isTrue();
    assertThat(clock.millis()).isEqualTo(before + 4_000);
    readMs.set(2);
    clock.reanchor();
    assertThat(clock.isStable()).isTrue();
  }
}
