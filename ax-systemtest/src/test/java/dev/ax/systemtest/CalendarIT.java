package dev.ax.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ax.cli.command.ExitCodes;
import dev.ax.common.contract.AxJson;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.AuditLog;
import dev.ax.common.store.InstanceRow;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Exclusion calendars through the public contract, with ingest, ticker and dispatcher running: a
 * calendar made with {@code ax calendar create} that excludes today (in a zone whose date is often
 * not UTC's) turns every firing of an every-second cron naming it into a SKIPPED instance whose
 * audit row names the calendar, and none runs; a task naming a calendar that excludes another day
 * runs; a task naming a calendar that does not exist is rejected with the reason; {@code ax task
 * next} shows the skips ahead; {@code ax calendar delete} is refused while a live task names it.
 */
@ExtendWith(AxInfraExtension.class)
class CalendarIT {

  /** UTC+14: its date differs from UTC's for ten hours of every day. */
  private static final ZoneId ZONE = ZoneId.of("Pacific/Kiritimati");

  @Test
  void excludedDaysAreSkippedWithTheCalendarsNameAndOtherDaysRun(AxTestEnv env) throws Exception {
    try (OneNode node = OneNode.start(env);
        CliRun.Target target = CliRun.pointAt(env, node.runtime())) {
      LocalDate today = LocalDate.now(ZONE);
      // Today and tomorrow, so that a run across the zone's midnight is excluded all the same.
      CliRun.ax(
              "calendar",
              "create",
              "closed",
              "--zone",
              ZONE.getId(),
              "--range",
              today + ".." + today.plusDays(1),
              "--description",
              "closed for the test")
          .okOut();
      CliRun.ax(
              "calendar",
              "create",
              "elsewhere",
              "--zone",
              ZONE.getId(),
              "--date",
              today.minusDays(10).toString())
          .okOut();
      assertThat(CliRun.ax("calendar", "list").okOut()).contains("closed", "elsewhere");

      node.send("excluded", TaskBody.EVERY_SECOND_UTC + ",\"calendars\":[\"closed\"]");
      node.send("included", TaskBody.EVERY_SECOND_UTC + ",\"calendars\":[\"elsewhere\"]");
      node.send("unknown", TaskBody.EVERY_SECOND_UTC + ",\"calendars\":[\"nope\"]");

      assertThat(node.awaitRejections(1))
          .singleElement()
          .asString()
          .contains("calendars names nope, which does not exist");
      node.awaitSucceeded("included", 2);
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> count(node, "excluded", InstanceStatus.SKIPPED) >= 3);
      List<InstanceRow> rows = node.instances().findByTask("excluded");
      assertThat(rows)
          .as("nothing of the excluded task ran")
          .allMatch(
              r -> r.status() == InstanceStatus.SKIPPED || r.status() == InstanceStatus.SCHEDULED);
      InstanceRow skipped =
          rows.stream().filter(r -> r.status() == InstanceStatus.SKIPPED).findFirst().orElseThrow();
      List<AuditLog.Transition> history =
          new AuditLog(node.runtime().dataSource()).history(skipped.instanceId());
      assertThat(history)
          .anySatisfy(
              t -> {
                assertThat(t.to()).isEqualTo(InstanceStatus.SKIPPED);
                assertThat(t.reason()).matches("calendar closed: excluded \\d{4}-\\d{2}-\\d{2}");
              });

      JsonNode next =
          AxJson.MAPPER.readTree(
              CliRun.ax("task", "next", "excluded", "-n", "3", "--json").okOut());
      assertThat(next.get("firings")).hasSize(3);
      next.get("firings")
          .forEach(f -> assertThat(f.get("reason").asText()).startsWith("calendar closed"));
      assertThat(CliRun.ax("task", "next", "included", "-n", "2").okOut())
          .contains("next 2 firing(s)", "runs");
      assertThat(CliRun.ax("task", "next", "included", "-n", "0").exitCode())
          .isEqualTo(ExitCodes.BAD_CONFIG);

      CliRun refused = CliRun.ax("calendar", "delete", "closed");
      assertThat(refused.exitCode()).isEqualTo(ExitCodes.FAILED);
      assertThat(refused.err()).contains("named by live tasks: excluded");
    }
  }

  private static long count(OneNode node, String taskId, InstanceStatus status) {
    return node.instances().findByTask(taskId).stream().filter(r -> r.status() == status).count();
  }
}
