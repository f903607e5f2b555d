package dev.ax.bench.peer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class PeerRecorderTest {

  private static final long NOW_MS = 1_000_000;
  private final Clock clock = Clock.fixed(Instant.ofEpochMilli(NOW_MS), ZoneOffset.UTC);

  @Test
  void countsEarlyStartsAndRepeatsApartFromLateness() throws Exception {
    PeerRecorder recorder = new PeerRecorder(clock, 3);

    recorder.started("a", NOW_MS - 7); // 7 ms late
    recorder.started("b", NOW_MS + 5); // 5 ms early: counted, lateness 0
    recorder.started("a", NOW_MS - 7); // a second start of a

    assertThat(recorder.awaitAll(Duration.ZERO)).isFalse();
    recorder.started("c", NOW_MS);
    assertThat(recorder.awaitAll(Duration.ZERO)).isTrue();
    PeerOutcome outcome = recorder.outcome("run", 3, NOW_MS - 2000, 5);
    assertThat(outcome.completed()).isEqualTo(3);
    assertThat(outcome.early()).isEqualTo(1);
    assertThat(outcome.duplicates()).isEqualTo(1);
    // 3 distinct starts over the 2 s from the first due time to the last start
    assertThat(outcome.dueWindowPerSecond()).isEqualTo(1.5);
    assertThat(outcome.cpuMs()).isEqualTo(5);
    var lateness = outcome.lateness();
    assertThat(lateness.getTotalCount()).isEqualTo(3);
    assertThat(lateness.getMaxValue()).isEqualTo(7);
  }

  @Test
  void refusesUnknownOrMalformedArguments() {
    assertThat(PeerBenchMain.options(new String[] {"--tasks=5", "--threads=20"}))
        .containsEntry("tasks", "5")
        .containsEntry("threads", "20");
    assertThatThrownBy(() -> PeerBenchMain.options(new String[] {"--tasks"}))
        .hasMessageContaining("--key=value");
    assertThatThrownBy(() -> PeerBenchMain.options(new String[] {"--password=x"}))
        .hasMessageContaining("unknown option --password");
  }

  @Test
  void settingsRefuseNonsense() {
    assertThatThrownBy(() -> PeerSettings.of(PeerSettings.Strategy.FETCH, 0, Duration.ofMillis(10)))
        .hasMessageContaining("threads");
    assertThatThrownBy(() -> PeerSettings.of(PeerSettings.Strategy.FETCH, 20, Duration.ZERO))
        .hasMessageContaining("pollingInterval");
    assertThatThrownBy(() -> PeerSettings.Strategy.fromCliName("poll"))
        .hasMessageContaining("fetch or lock-and-fetch");
    assertThat(
            PeerSettings.of(PeerSettings.Strategy.LOCK_AND_FETCH, 20, Duration.ofMillis(10))
                .describe())
        .isEqualTo("lock-and-fetch, 20 threads, 10 ms polling, 22 connections");
  }
}
