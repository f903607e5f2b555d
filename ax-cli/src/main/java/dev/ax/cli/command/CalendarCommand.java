package dev.ax.cli.command;

import picocli.CommandLine.Command;

/**
 * {@code ax calendar}: named exclusion calendars that tasks reference in {@code "calendars"}. Each
 * subcommand works on the database (a namespace's calendar given as {@code <namespace>~<name>}), or
 * through the API when {@code AX_API_URL} is set (in {@code AX_NAMESPACE}); each change is audited.
 * Runs on the main thread.
 */
@Command(
    name = "calendar",
    description = {
      "Exclusion calendars: dates, date ranges and weekly days, in a zone, on which the tasks that"
          + " name one (\"calendars\": [\"<name>\"]) do not run.",
      "An excluded firing is recorded SKIPPED with the reason 'calendar <name>: excluded <date>'."
    },
    subcommands = {
      CalendarCreateCommand.class,
      CalendarUpdateCommand.class,
      CalendarListCommand.class,
      CalendarShowCommand.class,
      CalendarDeleteCommand.class
    })
public final class CalendarCommand extends DatabaseCommandGroup {

  static final String PROCESS_NAME = "ax-calendar";

  public CalendarCommand() {
    super(PROCESS_NAME, "create, update, list, show, delete");
  }
}
