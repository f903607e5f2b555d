package dev.ax.common.stage;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ReadinessTest {

  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final Readiness readiness = new Readiness(Duration.ofSeconds(2), nanos::get);

  @Test
  void notReadyWhileStartingNorWithoutChecks() {
    assertThat(readiness.report().ready()).isFalse();
    assertThat(readiness.report().checks()).containsEntry("process", "starting");

    readiness.check();
    assertThat(readiness.report().ready()).as("no check at all: not ready").isFalse();
  }

  @Test
  void readyOnlyWhileEveryCheckPassesAndSaysWhichFails() {
    AtomicReference<Optional<String>> database = new AtomicReference<>(Optional.empty());
    readiness.add("database", database::get);
    readiness.add("broker", Optional::empty);
    readiness.check();
    assertThat(readiness.report().ready()).isTrue();
    assertThat(readiness.report().json())
        .isEqualTo("{\"status\":\"ready\",\"checks\":{\"database\":\"ok\",\"broker\":\"ok\"}}");

    database.set(Optional.of("database unreachable: \"refused\""));
    readiness.check();
    assertThat(readiness.report().ready()).isFalse();
    assertThat(readiness.report().json())
        .contains("\"status\":\"not ready\"")
        .contains("\"database\":\"database unreachable: \\\"refused\\\"\"");
  }

  @Test
  void aCheckThatThrowsIsAProblemNotALostRound() {
    readiness.add(
        "ticker",
        () -> {
          throw new IllegalStateException("boom");
        });
    readiness.check();
    assertThat(readiness.report().ready()).isFalse();
    assertThat(readiness.report().checks().get("ticker")).contains("boom");
  }

  @Test
  void aReportOlderThanThreeIntervalsIsNotReady() {
    readiness.add("broker", Optional::empty);
    readiness.check();
    nanos.addAndGet(Duration.ofSeconds(6).toNanos());
    assertThat(readiness.report().ready()).as("three intervals old: still fresh").isTrue();

    nanos.addAndGet(1);
    assertThat(readiness.report().ready()).isFalse();
    assertThat(readiness.report().checks().get("health")).contains("have not run for 6000 ms");
  }
}
