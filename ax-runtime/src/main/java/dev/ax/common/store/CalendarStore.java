package dev.ax.common.store;

import static dev.ax.common.store.Jdbc.Binder.values;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.ExclusionCalendarJson;
import dev.ax.common.contract.TaskSpecJson;
import dev.ax.common.model.Namespace;
import dev.ax.common.model.TaskState;
import dev.ax.common.schedule.ExclusionCalendar;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The exclusion calendars ({@code ax_calendar}, V26): written by the API and the CLI, read by
 * ingest (does a task's calendar exist?), the ticker (which firings to skip) and whatever shows a
 * task's next firings. Names are stored ones ({@code <namespace>~<name>}). Bounded: at most {@link
 * #MAX_CALENDARS}; a create past it is refused ({@link Change#FULL}). Each change bumps the row's
 * version. A calendar that a live (ACTIVE or PAUSED) task names is not deleted ({@link
 * Deletion#usedBy}). Every expected outcome is a returned value. Thread-safe (stateless over a
 * pool).
 */
public final class CalendarStore {

  /** Most calendars AX keeps, all namespaces together. */
  public static final int MAX_CALENDARS = 1_000;

  /** Most task ids a refused deletion names. */
  public static final int MAX_USERS_NAMED = 10;

  /** What a create, update or delete did. */
  public enum Change {
    CREATED,
    CHANGED,
    /** Nothing to change: it was so already. */
    UNCHANGED,
    /** Removed (what a deletion answers when it was done). */
    DELETED,
    /** A create of a calendar that exists. */
    EXISTS,
    /** An update or delete of a calendar that does not exist. */
    NO_CALENDAR,
    /** Refused: {@link #MAX_CALENDARS} calendars exist. */
    FULL
  }

  /** One calendar as stored. */
  public record StoredCalendar(
      ExclusionCalendar calendar, long version, long createdAtMs, long updatedAtMs) {}

  /**
   * What a deletion did: {@code deleted}, or not because there was no such calendar, or because
   * live tasks name it ({@code usedBy}: at most {@link #MAX_USERS_NAMED} of them, stored ids).
   */
  public record Deletion(boolean deleted, boolean existed, List<String> usedBy) {}

  private static final String COLUMNS =
      "SELECT name, spec_json, version, created_at_ms, updated_at_ms FROM ax_calendar";

  private final Jdbc jdbc;

  public CalendarStore(DataSource dataSource) {
    this.jdbc = new Jdbc(dataSource);
  }

  /**
   * Creates {@code calendar} ({@code create}), or replaces the one of its name.
   *
   * @return for a create CREATED, EXISTS or FULL; for an update CHANGED, UNCHANGED or NO_CALENDAR
   */
  public Change put(ExclusionCalendar calendar, boolean create, long nowMs) {
    String name = calendar.name();
    String json = AxJson.writeString(ExclusionCalendarJson.write(calendar));
    return jdbc.inTransaction(
        (create ? "creating" : "updating") + " calendar " + name,
        tx -> {
          Optional<String> existing =
              tx.queryFirst(
                  "SELECT spec_json FROM ax_calendar WHERE name = ? FOR UPDATE",
                  values(name),
                  rs -> rs.getString(1));
          if (existing.isPresent()) {
            if (create) {
              return Change.EXISTS;
            }
            if (existing.get().equals(json)) {
              return Change.UNCHANGED;
            }
            tx.update(
                "UPDATE ax_calendar SET spec_json = ?, version = version + 1, updated_at_ms = ?"
                    + " WHERE name = ?",
                values(json, nowMs, name));
            return Change.CHANGED;
          }
          if (!create) {
            return Change.NO_CALENDAR;
          }
          // Two creates at once may both count below the bound and overshoot it by one each: the
          // bound keeps the table small, it is not exact to the row.
          long count =
              tx.queryFirst("SELECT COUNT(*) FROM ax_calendar", values(), rs -> rs.getLong(1))
                  .orElse(0L);
          if (count >= MAX_CALENDARS) {
            return Change.FULL;
          }
          tx.update(
              "INSERT INTO ax_calendar (name, spec_json, version, created_at_ms, updated_at_ms)"
                  + " VALUES (?, ?, 1, ?, ?)",
              values(name, json, nowMs, nowMs));
          return Change.CREATED;
        });
  }

  /**
   * Deletes calendar {@code name} unless a live task names it. The live tasks are found by a read
   * of the ACTIVE and PAUSED tasks' specs that mention the name (an index range by state, then the
   * specs parsed to be sure): an operator's rare command, not a path of the pipeline.
   */
  public Deletion delete(String name) {
    return jdbc.inTransaction(
        "deleting calendar " + name,
        tx -> {
          if (tx.queryFirst(
                  "SELECT name FROM ax_calendar WHERE name = ? FOR UPDATE",
                  values(name),
                  rs -> rs.getString(1))
              .isEmpty()) {
            return new Deletion(false, false, List.of());
          }
          List<String> users = new ArrayList<>();
          for (String[] row :
              tx.query(
                  "SELECT task_id, spec_json FROM ax_task WHERE state IN (?, ?)"
                      + " AND spec_json LIKE ? ESCAPE '!' ORDER BY task_id",
                  values(
                      TaskState.ACTIVE.name(),
                      TaskState.PAUSED.name(),
                      "%\"" + likeEscaped(name) + "\"%"),
                  rs -> new String[] {rs.getString(1), rs.getString(2)})) {
            if (users.size() < MAX_USERS_NAMED
                && TaskSpecJson.readStored(row[0], row[1]).rules().calendars().contains(name)) {
              users.add(row[0]);
            }
          }
          if (!users.isEmpty()) {
            return new Deletion(false, true, users);
          }
          tx.update("DELETE FROM ax_calendar WHERE name = ?", values(name));
          return new Deletion(true, true, List.of());
        });
  }

  /** Calendar {@code name} (stored), if it exists. */
  public Optional<StoredCalendar> calendar(String name) {
    return jdbc.queryFirst(
        "reading calendar " + name, COLUMNS + " WHERE name = ?", values(name), CalendarStore::row);
  }

  /** Every calendar, all namespaces, by name: at most {@link #MAX_CALENDARS}. */
  public List<StoredCalendar> all() {
    return jdbc.query(
        "reading the calendars",
        COLUMNS + " ORDER BY name LIMIT " + (MAX_CALENDARS * 2),
        values(),
        CalendarStore::row);
  }

  /** The calendars of {@code namespace}, by name. */
  public List<StoredCalendar> of(Namespace namespace) {
    if (namespace.isDefault()) {
      return jdbc.query(
          "reading the calendars of the default namespace",
          COLUMNS + " WHERE name NOT LIKE '%~%' ORDER BY name",
          values(),
          CalendarStore::row);
    }
    return jdbc.query(
        "reading the calendars of namespace " + namespace,
        COLUMNS + " WHERE name LIKE ? ORDER BY name",
        values(namespace.qualify("%")),
        CalendarStore::row);
  }

  /** Those of {@code names} (stored) that exist. */
  public Set<String> existing(Collection<String> names) {
    return new HashSet<>(
        jdbc.queryIn(
            "reading which calendars exist",
            names,
            in -> "SELECT name FROM ax_calendar WHERE name IN (" + in + ")",
            List.of(),
            rs -> rs.getString(1)));
  }

  private static String likeEscaped(String text) {
    return text.replace("!", "!!").replace("%", "!%").replace("_", "!_");
  }

  private static StoredCalendar row(ResultSet rs) throws SQLException {
    String name = rs.getString(1);
    com.fasterxml.jackson.databind.JsonNode spec;
    try {
      spec = AxJson.MAPPER.readTree(rs.getString(2));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new SQLException("calendar " + name + " holds no JSON: " + e.getOriginalMessage(), e);
    }
    return new StoredCalendar(
        ExclusionCalendarJson.read(name, spec), rs.getLong(3), rs.getLong(4), rs.getLong(5));
  }
}
