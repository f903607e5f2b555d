package dev.ax.api.write;

import dev.ax.api.audit.OperatorLog;
import dev.ax.common.model.Namespace;
import dev.ax.common.stage.Switches;
import dev.ax.common.store.SwitchStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

/**
 * The emergency switches as an operator sees and flips them, the same from {@code ax switch} and
 * the API: each known switch with its value (or the value it has until first set), version, who set
 * it when, and which stages ({@code name@node}) applied the current version or are still behind; a
 * flip is stored and audited in {@code ax_operator_log}. Thread-safe, like the store and log.
 */
public final class SwitchBoard {

  /** The switches by name, with the value they have until first set. */
  public static final Map<String, String> KNOWN = known();

  /** {@code dispatch.<group>}: the dispatch switch of one task group. */
  private static final Pattern GROUP_DISPATCH =
      Pattern.compile(
          Pattern.quote(Switches.DISPATCH + ".")
              + "(?:"
              + Namespace.NAME.pattern()
              + Namespace.SEPARATOR
              + ")?[A-Za-z0-9._-]{1,64}|"
              + Pattern.quote(Switches.DISPATCH + ".")
              + Namespace.NAME.pattern()
              + Namespace.SEPARATOR
              + "\\*");

  /** {@code intake.<namespace>}: the intake switch of one namespace. */
  private static final Pattern NAMESPACE_INTAKE =
      Pattern.compile(Pattern.quote(Switches.INTAKE + ".") + Namespace.NAME.pattern());

  private static final List<String> ON_OFF = List.of("on", "off");

  /** One switch as shown: {@code version} 0 and no setter when it was never set. */
  public record SwitchView(
      String name,
      String value,
      boolean neverSet,
      long version,
      String setBy,
      Long setAtMs,
      List<String> appliedBy,
      List<String> behind) {}

  private final SwitchStore switches;
  private final OperatorLog log;
  private final LongSupplier clockMs;

  public SwitchBoard(SwitchStore switches, OperatorLog log, LongSupplier clockMs) {
    this.switches = switches;
    this.log = log;
    this.clockMs = clockMs;
  }

  /** Why {@code name} cannot be set to {@code value}, or null when it can. */
  public static String problem(String name, String value) {
    if (!KNOWN.containsKey(name)
        && !GROUP_DISPATCH.matcher(name).matches()
        && !NAMESPACE_INTAKE.matcher(name).matches()) {
      return "unknown switch '"
          + name
          + "'; known: "
          + KNOWN.keySet()
          + ", dispatch.<group>, dispatch.<namespace>~* and intake.<namespace>";
    }
    if (value == null || !ON_OFF.contains(value)) {
      return "switch " + name + " takes one of " + ON_OFF + ": " + value;
    }
    return null;
  }

  /**
   * Sets {@code name} to {@code value} by {@code operator} and audits it with {@code reason} (null:
   * none given); returns whether the value changed.
   *
   * @throws IllegalArgumentException for a switch or value {@link #problem} refuses
   */
  public boolean set(String name, String value, String operator, String reason) {
    String problem = problem(name, value);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    boolean changed =
        switches.set(name, value, "ax switch (" + operator + ")", clockMs.getAsLong());
    if (changed) {
      log.record(
          operator,
          "switch",
          name,
          "set to " + value + (reason == null ? "" : ": " + reason),
          clockMs.getAsLong());
    }
    return changed;
  }

  /**
   * The namespace whose own switch {@code name} is ({@code intake.<ns>}, {@code
   * dispatch.<ns>~<group>}), or empty for an AX-wide one (and {@code dispatch.<group>} of the
   * default namespace).
   */
  public static java.util.Optional<Namespace> namespaceOf(String name) {
    if (NAMESPACE_INTAKE.matcher(name).matches()) {
      return Namespace.parse(name.substring(Switches.INTAKE.length() + 1));
    }
    if (GROUP_DISPATCH.matcher(name).matches() && name.indexOf(Namespace.SEPARATOR) > 0) {
      return java.util.Optional.of(Namespace.of(name.substring(Switches.DISPATCH.length() + 1)));
    }
    return java.util.Optional.empty();
  }

  /** Every known switch, then every other one set, by name. */
  public List<SwitchView> view() {
    Map<String, SwitchStore.Switch> all = switches.all();
    Map<String, List<SwitchStore.Applied>> applied = new HashMap<>();
    switches
        .applied()
        .forEach(a -> applied.computeIfAbsent(a.name(), n -> new ArrayList<>()).add(a));
    List<String> shown = new ArrayList<>(KNOWN.keySet());
    all.keySet().stream().filter(n -> !KNOWN.containsKey(n)).sorted().forEach(shown::add);
    List<SwitchView> views = new ArrayList<>();
    for (String name : shown) {
      SwitchStore.Switch set = all.get(name);
      if (set == null) {
        views.add(new SwitchView(name, KNOWN.get(name), true, 0, null, null, List.of(), List.of()));
        continue;
      }
      List<String> current = new ArrayList<>();
      List<String> behind = new ArrayList<>();
      for (SwitchStore.Applied a : applied.getOrDefault(name, List.of())) {
        if (a.version() == set.version()) {
          current.add(a.stage());
        } else if (a.version() < set.version()) {
          behind.add(a.stage() + " (v" + a.version() + ")");
        }
      }
      views.add(
          new SwitchView(
              name,
              set.value(),
              false,
              set.version(),
              set.updatedBy(),
              set.updatedAtMs(),
              List.copyOf(current),
              List.copyOf(behind)));
    }
    return views;
  }

  private static Map<String, String> known() {
    Map<String, String> known = new LinkedHashMap<>();
    known.put(Switches.INTAKE, "on");
    known.put(Switches.DISPATCH, "on");
    known.put(Switches.RETRIES, "on");
    known.put(Switches.SERIAL, "off");
    return java.util.Collections.unmodifiableMap(known);
  }
}
