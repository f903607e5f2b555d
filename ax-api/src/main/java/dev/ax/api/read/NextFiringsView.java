package dev.ax.api.read;

import static dev.ax.common.store.Jdbc.Binder.values;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.common.contract.AxJson;
import dev.ax.common.model.InstanceIds;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.Namespace;
import dev.ax.common.schedule.FireTimes;
import dev.ax.common.schedule.UpcomingFirings;
import dev.ax.common.schedule.UpcomingFirings.Listing;
import dev.ax.common.schedule.UpcomingFirings.Query;
import dev.ax.common.store.CalendarStore;
import dev.ax.common.store.CalendarStore.StoredCalendar;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.StoredTask;
import dev.ax.common.store.TaskStore;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;
import javax.sql.DataSource;

/**
 * A task's next firings as JSON, the same for {@code ax task next --json} and {@code GET
 * /api/v1/tasks/{taskId}/next?n=}: each firing's slot, due time (jitter applied) and whether a
 * calendar skips it, with notes for what cannot be listed ({@link UpcomingFirings}). Reads the
 * task, its stored next firing (the first SCHEDULED or PAUSED instance of a slot, by the {@code
 * (task_id, due_at_ms)} index, at most 16 rows) and the calendars it names, by key. Thread-safe.
 */
public final class NextFiringsView {

  /** Pending instances read to find the chain's among RUN_NOW ones. */
  private static final int PENDING_READ = 16;

  private final TaskStore tasks;
  private final CalendarStore calendars;
  private final Jdbc jdbc;
  private final LongSupplier clockMs;
  private final UpcomingFirings upcoming = new UpcomingFirings(new FireTimes(64));

  public NextFiringsView(DataSource dataSource, LongSupplier clockMs) {
    this.tasks = new TaskStore(dataSource);
    this.calendars = new CalendarStore(dataSource);
    this.jdbc = new Jdbc(dataSource);
    this.clockMs = clockMs;
  }

  /**
   * The next {@code n} firings of {@code taskId} (stored id); empty when there is no such task.
   *
   * @throws IllegalArgumentException when {@code n} is outside {@code 1..}{@link
   *     UpcomingFirings#MAX_COUNT}
   */
  public Optional<ObjectNode> next(String taskId, int n) {
    UpcomingFirings.requireCount(n);
    Optional<StoredTask> task = tasks.find(taskId);
    if (task.isEmpty()) {
      return Optional.empty();
    }
    long acceptedAtMs =
        jdbc.queryFirst(
                "reading when task " + taskId + " was accepted",
                "SELECT created_at_ms FROM ax_task WHERE task_id = ?",
                values(taskId),
                rs -> rs.getLong(1))
            .orElse(clockMs.getAsLong());
    Listing listing =
        upcoming.next(
            new Query(
                task.get().spec(),
                task.get().state(),
                Instant.ofEpochMilli(acceptedAtMs),
                storedNextSlot(taskId).orElse(null),
                Instant.ofEpochMilli(clockMs.getAsLong()),
                n),
            name -> calendars.calendar(name).map(StoredCalendar::calendar));
    ObjectNode root = AxJson.MAPPER.createObjectNode();
    root.put("taskId", taskId)
        .put("namespace", Namespace.of(taskId).name())
        .put("state", task.get().state().name())
        .put("trigger", task.get().spec().trigger().type().name());
    ArrayNode firings = root.putArray("firings");
    for (UpcomingFirings.Upcoming firing : listing.firings()) {
      ObjectNode node =
          firings
              .addObject()
              .put("slotAtMs", firing.slotMs())
              .put("slotAt", Instant.ofEpochMilli(firing.slotMs()).toString())
              .put("dueAtMs", firing.dueAtMs())
              .put("dueAt", Instant.ofEpochMilli(firing.dueAtMs()).toString())
              .put("skipped", firing.skippedBy() != null);
      if (firing.skippedBy() != null) {
        node.put("reason", firing.skippedBy());
      }
    }
    ArrayNode notes = root.putArray("notes");
    listing.notes().forEach(notes::add);
    return Optional.of(root);
  }

  /** The slot (or, for an id naming none, the due time) of the task's stored next firing. */
  private Optional<Long> storedNextSlot(String taskId) {
    List<long[]> pending =
        jdbc.query(
            "reading the next firing of task " + taskId,
            "SELECT instance_id, due_at_ms FROM ax_instance FORCE INDEX (ax_instance_task)"
                + " WHERE task_id = ? AND status IN (?, ?) AND shard_of IS NULL"
                + " ORDER BY due_at_ms LIMIT "
                + PENDING_READ,
            values(taskId, InstanceStatus.SCHEDULED.name(), InstanceStatus.PAUSED.name()),
            rs -> {
              String id = rs.getString(1);
              if (id.startsWith(taskId + "@run:") || !id.startsWith(taskId + "@")) {
                return null;
              }
              return new long[] {InstanceIds.isSlotId(id) ? InstanceIds.slotOf(id) : rs.getLong(2)};
            });
    return pending.stream().filter(java.util.Objects::nonNull).map(slot -> slot[0]).findFirst();
  }
}
