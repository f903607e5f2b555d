package dev.ax.common.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.schedule.CronSchedule;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class TriggerGroupsTest {

  /** A valid Quartz expression of about 900 characters: every value listed in every field. */
  private static final String LONG_CRON =
      list(0, 59)
          + " "
          + list(0, 59)
          + " "
          + list(0, 23)
          + " "
          + list(1, 31)
          + " "
          + list(1, 12)
          + " ? "
          + list(2026, 2099);

  private static String list(int from, int to) {
    return IntStream.rangeClosed(from, to)
        .mapToObj(Integer::toString)
        .collect(Collectors.joining(","));
  }

  @Test
  void shortKeysStayReadable() {
    assertThat(TriggerGroups.keyOf(new Trigger.Cron("0 0 * * * ?", ZoneId.of("UTC"))))
        .isEqualTo("CRON|0 0 * * * ?|UTC");
    assertThat(
            TriggerGroups.keyOf(
                new Trigger.FixedRate(Duration.ofSeconds(5), Instant.ofEpochMilli(1_000))))
        .isEqualTo("FIXED_RATE|5000|1000");
    assertThat(TriggerGroups.keyOf(Trigger.Once.after(Duration.ZERO))).isEqualTo("ONCE");
  }

  @Test
  void aLongValidCronGetsAStableHashKeyThatFitsTheColumn() {
    assertThat(LONG_CRON.length()).isGreaterThan(TriggerGroups.MAX_KEY_LENGTH);
    assertThat(CronSchedule.problem(LONG_CRON)).isEmpty();
    Trigger.Cron cron = new Trigger.Cron(LONG_CRON, ZoneId.of("Europe/Berlin"));

    String key = TriggerGroups.keyOf(cron);

    assertThat(key)
        .hasSizeLessThanOrEqualTo(TriggerGroups.MAX_KEY_LENGTH)
        .matches("CRON#sha256:[0-9a-f]{64}");
    assertThat(TriggerGroups.keyOf(new Trigger.Cron(LONG_CRON, ZoneId.of("Europe/Berlin"))))
        .isEqualTo(key);
    assertThat(TriggerGroups.keyOf(new Trigger.Cron(LONG_CRON, ZoneId.of("UTC"))))
        .isNotEqualTo(key);
  }

  @Test
  void aKeyOfExactlyTheColumnWidthIsKeptAndOneMoreIsHashed() {
    String prefix = "CRON|";
    String suffix = "|UTC";
    String fits = "x".repeat(TriggerGroups.MAX_KEY_LENGTH - prefix.length() - suffix.length());

    assertThat(TriggerGroups.keyOf(new Trigger.Cron(fits, ZoneId.of("UTC"))))
        .hasSize(TriggerGroups.MAX_KEY_LENGTH)
        .startsWith(prefix);
    assertThat(TriggerGroups.keyOf(new Trigger.Cron(fits + "x", ZoneId.of("UTC"))))
        .startsWith("CRON#sha256:");
  }

  @Test
  void hugeIntervalsAndInstantsDoNotThrow() {
    String key =
        TriggerGroups.keyOf(new Trigger.FixedRate(Duration.ofSeconds(Long.MAX_VALUE), Instant.MAX));

    assertThat(key).isEqualTo("FIXED_RATE|" + Long.MAX_VALUE + "|253402300799999");
  }
}
