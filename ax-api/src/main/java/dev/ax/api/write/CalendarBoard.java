package dev.ax.api.write;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.api.audit.OperatorLog;
import dev.ax.common.contract.Echo;
import dev.ax.common.contract.ExclusionCalendarJson;
import dev.ax.common.model.Namespace;
import dev.ax.common.schedule.ExclusionCalendar;
import dev.ax.common.store.CalendarStore;
import dev.ax.common.store.CalendarStore.Change;
import dev.ax.common.store.CalendarStore.Deletion;
import dev.ax.common.store.CalendarStore.StoredCalendar;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The operators' changes to exclusion calendars, shared by the API and {@code ax calendar}: create,
 * update, delete, list, show, in one namespace (calendars are stored {@code <namespace>~<name>}
 * like groups; a namespace's tasks name only its own). Each change that changed something writes
 * one operator-log entry (action {@code calendar.create}, {@code calendar.update}, {@code
 * calendar.delete}; target the stored name). A deletion that live tasks refuse names a bounded
 * number of them ({@link CalendarStore#MAX_USERS_NAMED}).
 *
 * <p>Thread-safe: stateless over the store and the log.
 */
public final class CalendarBoard {

  private final CalendarStore store;
  private final OperatorLog audit;
  private final LongSupplier clockMs;

  public CalendarBoard(CalendarStore store, OperatorLog audit, LongSupplier clockMs) {
    this.store = store;
    this.audit = audit;
    this.clockMs = clockMs;
  }

  /** Why {@code name} is no calendar name, or null. */
  public static String nameProblem(String name) {
    return name != null && ExclusionCalendar.NAME.matcher(name).matches()
        ? null
        : "a calendar name must match " + ExclusionCalendar.NAME.pattern() + ": " + Echo.of(name);
  }

  /**
   * Creates ({@code create}) or replaces {@code calendar} (its name as users write it) in {@code
   * namespace}.
   */
  public Change put(
      Namespace namespace,
      ExclusionCalendar calendar,
      boolean create,
      String actor,
      String reason) {
    ExclusionCalendar stored = calendar.withName(namespace.qualify(calendar.localName()));
    Change change = store.put(stored, create, clockMs.getAsLong());
    if (change == Change.CREATED || change == Change.CHANGED) {
      audit.record(
          actor,
          create ? "calendar.create" : "calendar.update",
          stored.name() + " " + summary(stored),
          reason,
          clockMs.getAsLong());
    }
    return change;
  }

  /** Deletes calendar {@code name} of {@code namespace} unless a live task names it. */
  public Deletion delete(Namespace namespace, String name, String actor, String reason) {
    String stored = namespace.qualify(name);
    Deletion deletion = store.delete(stored);
    if (deletion.deleted()) {
      audit.record(actor, "calendar.delete", stored, reason, clockMs.getAsLong());
    }
    return deletion;
  }

  /** Why a deletion was refused, naming the tasks (as their namespace's users write them). */
  public static String inUse(String name, Deletion deletion) {
    return "calendar "
        + name
        + " is named by live tasks: "
        + String.join(", ", deletion.usedBy().stream().map(Namespace::localId).toList())
        + (deletion.usedBy().size() >= CalendarStore.MAX_USERS_NAMED ? ", ..." : "")
        + "; update or cancel them first";
  }

  /** The calendars of {@code namespace}, by name, as shown. */
  public List<ObjectNode> list(Namespace namespace) {
    return store.of(namespace).stream().map(CalendarBoard::shown).toList();
  }

  /** Calendar {@code name} of {@code namespace}, as shown. */
  public Optional<ObjectNode> show(Namespace namespace, String name) {
    return store.calendar(namespace.qualify(name)).map(CalendarBoard::shown);
  }

  /** A calendar as shown: its JSON with the name users write, and its version and times. */
  public static ObjectNode shown(StoredCalendar row) {
    ObjectNode node = ExclusionCalendarJson.writeShown(row.calendar());
    node.put("namespace", Namespace.of(row.calendar().name()).name())
        .put("version", row.version())
        .put("createdAtMs", row.createdAtMs())
        .put("updatedAtMs", row.updatedAtMs());
    return node;
  }

  /** A short summary of what a calendar excludes, for the operator log. */
  static String summary(ExclusionCalendar calendar) {
    return calendar.zone()
        + " dates "
        + calendar.dates().size()
        + " ranges "
        + calendar.ranges().size()
        + " weekly "
        + calendar.weeklyInOrder().stream().map(ExclusionCalendarJson::shortName).toList();
  }
}
