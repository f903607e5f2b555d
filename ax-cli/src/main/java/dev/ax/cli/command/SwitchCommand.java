package dev.ax.cli.command;

import dev.ax.api.audit.OperatorLog;
import dev.ax.cli.text.Columns;
import dev.ax.common.stage.Switches;
import dev.ax.common.store.SwitchStore;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * {@code ax switch}: shows the emergency switches, or flips one. Every stage reads them every
 * {@code AX_SWITCH_POLL} and logs the change once when it takes effect there. Runs on the main
 * thread.
 */
@Command(
    name = "switch",
    description = {
      "Show the emergency switches, or set one: `ax switch retries off` sends every failure"
          + " straight to a dead letter and holds pending retries; `ax switch intake off` stops"
          + " ingest reading commands (they wait in Kafka); `ax switch dispatch off` (or"
          + " dispatch.<group>) stops dispatchers claiming (due instances wait DISPATCHED);"
          + " `ax switch serial on` makes each dispatcher run one attempt at a time per pool.",
      "Every stage a switch concerns picks a change up within AX_SWITCH_POLL, logs it once and"
          + " records it: the table shows which stages (name@node) have applied the current"
          + " version and which are still behind."
    })
public final class SwitchCommand extends WorkDirCommand {

  private static final List<String> ON_OFF = List.of("on", "off");

  /** The switches by name, with the value they have until first set. */
  private static final Map<String, String> KNOWN = new LinkedHashMap<>();

  static {
    KNOWN.put(Switches.INTAKE, "on");
    KNOWN.put(Switches.DISPATCH, "on");
    KNOWN.put(Switches.RETRIES, "on");
    KNOWN.put(Switches.SERIAL, "off");
  }

  /** {@code dispatch.<group>}: the dispatch switch of one task group. */
  private static final Pattern GROUP_DISPATCH =
      Pattern.compile(Pattern.quote(Switches.DISPATCH + ".") + "[A-Za-z0-9._-]{1,64}");

  private static final Columns<Line> COLUMNS =
      Columns.<Line>builder()
          .left("switch", Line::name)
          .left("value", Line::value)
          .right("version", Line::version)
          .left("set by", Line::setBy)
          .left("at", Line::at)
          .left("applied by", Line::appliedBy)
          .left("behind", Line::behind)
          .build();

  @Parameters(
      index = "0",
      arity = "0..1",
      paramLabel = "<switch>",
      description = "intake, dispatch, dispatch.<group>, retries or serial")
  private String name;

  @Parameters(index = "1", arity = "0..1", paramLabel = "<value>", description = "on or off")
  private String value;

  @Override
  public Integer call() {
    if (name != null && !KNOWN.containsKey(name) && !GROUP_DISPATCH.matcher(name).matches()) {
      throw new ParameterException(
          spec.commandLine(), "unknown switch '" + name + "'; known: " + KNOWN.keySet());
    }
    List<String> values = name == null ? List.of() : ON_OFF;
    if (name != null && value == null) {
      throw new ParameterException(spec.commandLine(), "give the value to set: one of " + values);
    }
    String normalised = value == null ? null : value.toLowerCase(Locale.ROOT);
    if (normalised != null && !values.contains(normalised)) {
      throw new ParameterException(
          spec.commandLine(), "switch " + name + " takes one of " + values + ": " + value);
    }
    return CliDatabase.run(
        spec, workDir, "ax-switch", (db, out) -> setAndPrint(db, out, normalised));
  }

  /** Sets the switch named, if any, to {@code normalised}, then prints every known switch. */
  private int setAndPrint(CliDatabase db, PrintWriter out, String normalised) {
    SwitchStore switches = new SwitchStore(db.dataSource);
    if (name != null) {
      String operator = Operator.name();
      boolean changed =
          switches.set(name, normalised, "ax switch (" + operator + ")", db.clock.millis());
      if (changed) {
        new OperatorLog(db.dataSource)
            .record(operator, "switch", name, "set to " + normalised, db.clock.millis());
      }
      out.println(
          "switch "
              + name
              + (changed ? " set to " : " was already ")
              + normalised
              + (changed ? "; every stage applies it within AX_SWITCH_POLL" : ""));
    }
    Map<String, SwitchStore.Switch> all = switches.all();
    Map<String, List<SwitchStore.Applied>> applied = new HashMap<>();
    switches
        .applied()
        .forEach(a -> applied.computeIfAbsent(a.name(), n -> new ArrayList<>()).add(a));
    List<String> shown = new ArrayList<>(KNOWN.keySet());
    all.keySet().stream().filter(n -> !KNOWN.containsKey(n)).sorted().forEach(shown::add);
    List<Line> lines = new ArrayList<>();
    for (String known : shown) {
      SwitchStore.Switch s = all.get(known);
      lines.add(
          s == null ? Line.neverSet(known) : Line.of(s, applied.getOrDefault(known, List.of())));
    }
    COLUMNS.table(lines).print(out, "");
    return ExitCodes.OK;
  }

  /** One switch as the table shows it: as set, or with the value it has until first set. */
  private record Line(
      String name,
      String value,
      long version,
      String setBy,
      String at,
      String appliedBy,
      String behind) {

    static Line neverSet(String name) {
      return new Line(name, KNOWN.get(name) + " (never set)", 0, "", "", "", "");
    }

    static Line of(SwitchStore.Switch set, List<SwitchStore.Applied> stages) {
      return new Line(
          set.name(),
          set.value(),
          set.version(),
          set.updatedBy(),
          Instant.ofEpochMilli(set.updatedAtMs()).toString(),
          stagesAt(stages, set.version(), true),
          stagesAt(stages, set.version(), false));
    }
  }

  /**
   * The stages that applied {@code version} ({@code current}), or those still at an older one, with
   * the version they applied.
   */
  private static String stagesAt(List<SwitchStore.Applied> stages, long version, boolean current) {
    StringJoiner joined = new StringJoiner(", ");
    for (SwitchStore.Applied a : stages) {
      if (current && a.version() == version) {
        joined.add(a.stage());
      } else if (!current && a.version() < version) {
        joined.add(a.stage() + " (v" + a.version() + ")");
      }
    }
    return joined.toString();
  }
}
