package dev.ax.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.contract.CommandReadResult;
import dev.ax.common.contract.CommandReader;
import dev.ax.common.contract.IntakeLimits;
import dev.ax.common.kafka.Topics;
import dev.ax.common.model.Namespace;
import dev.ax.common.time.SettableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** A task naming a calendar that does not exist is refused at intake, with the calendar named. */
class KnownCalendarsTest {

  private final SettableClock clock = new SettableClock(Instant.parse("2026-12-01T00:00:00Z"));
  private final Set<String> stored = new HashSet<>(Set.of("holidays", "billing~holidays"));
  private final List<Collection<String>> lookups = new ArrayList<>();
  private final KnownCalendars known =
      new KnownCalendars(
          names -> {
            lookups.add(List.copyOf(names));
            Set<String> found = new HashSet<>(names);
            found.retainAll(stored);
            return found;
          },
          clock);
  private final NamespaceIntake intake =
      new NamespaceIntake(
          new Topics(""),
          new KnownNamespaces(() -> List.of(new Namespace("billing")), clock),
          known);
  private final CommandReader reader =
      new CommandReader(Duration.ofSeconds(30), IntakeLimits.DEFAULTS, clock);

  private CommandReadResult admit(String topic, String calendars) {
    String json =
        "{\"v\":1,\"taskId\":\"t\",\"trigger\":{\"type\":\"CRON\",\"expression\":\"* * * * * ?\"},"
            + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"},\"timeoutMs\":5000,"
            + "\"calendars\":"
            + calendars
            + "}";
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    return intake.admit(new ConsumerRecord<>(topic, 0, 0, "t", bytes), reader.read(bytes));
  }

  @Test
  void existingCalendarsAreAcceptedInTheirNamespace() {
    assertThat(admit("ax.task.commands", "[\"holidays\"]"))
        .isInstanceOf(CommandReadResult.Accepted.class);
    CommandReadResult billing = admit("ax.billing.task.commands", "[\"holidays\"]");
    assertThat(((CommandReadResult.Accepted) billing).command().spec().rules().calendars())
        .containsExactly("billing~holidays");
  }

  @Test
  void aMissingCalendarIsRefusedWithItsName() {
    CommandReadResult read = admit("ax.task.commands", "[\"holidays\",\"closures\"]");
    assertThat(((CommandReadResult.Rejected) read).reason())
        .isEqualTo(
            "calendars names closures, which does not exist: an operator creates it with"
                + " 'ax calendar create closures --zone <zone> ...'");
    // Another namespace's calendar of the same name does not count.
    stored.remove("billing~holidays");
    assertThat(admit("ax.billing.task.commands", "[\"holidays\"]"))
        .isInstanceOf(CommandReadResult.Rejected.class);
  }

  @Test
  void lookupsAreRememberedBrieflyAndACreatedCalendarIsSeenWithinASecond() {
    admit("ax.task.commands", "[\"closures\"]");
    admit("ax.task.commands", "[\"closures\"]");
    admit("ax.task.commands", "[\"holidays\"]");
    admit("ax.task.commands", "[\"holidays\"]");
    assertThat(lookups).containsExactly(List.of("closures"), List.of("holidays"));
    stored.add("closures");
    clock.tick(Duration.ofMillis(KnownCalendars.MISSING_MS));
    assertThat(admit("ax.task.commands", "[\"closures\"]"))
        .isInstanceOf(CommandReadResult.Accepted.class);
    clock.tick(Duration.ofMillis(KnownCalendars.TRUST_MS));
    stored.remove("holidays");
    assertThat(admit("ax.task.commands", "[\"holidays\"]"))
        .as("trust ends: a deleted calendar is seen")
        .isInstanceOf(CommandReadResult.Rejected.class);
  }
}
