package dev.ax.common.stage;

import dev.ax.common.model.Namespace;
import dev.ax.common.store.SwitchStore;
import dev.ax.common.thread.DaemonThreads;
import dev.ax.common.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The emergency switches as one stage sees them: read from the database every {@code poll}; each
 * change of a switch the stage applies is logged once by the stage when it takes effect there, and
 * recorded in {@code ax_switch_applied} under the stage's name ({@code ax switch} shows it; a
 * record that fails is written again at the next read). Until the first read succeeds, and while
 * the database is away, the last values read hold (at start: every switch at its default, on, and
 * {@code serial} off).
 *
 * <p>Thread-safe: one thread reads the database; the getters read a volatile snapshot.
 */
public final class Switches implements AutoCloseable {

  /** {@code off}: every failure goes straight to a dead letter and pending retries are held. */
  public static final String RETRIES = "retries";

  /**
   * {@code off}: ingest stops reading commands; they wait in Kafka. {@code intake.<namespace>} does
   * the same for one namespace's commands topic.
   */
  public static final String INTAKE = "intake";

  /**
   * {@code off}: dispatchers claim nothing; due instances wait DISPATCHED. {@code dispatch.<group>}
   * does the same for one task group (one dispatcher pool).
   */
  public static final String DISPATCH = "dispatch";

  /**
   * {@code on}: each dispatcher runs at most one attempt at a time per pool (a task group with a
   * pool of its own; the groups sharing the overflow pool, and retried attempts, one at a time
   * each). Off when never set.
   */
  public static final String SERIAL = "serial";

  private static final Logger log = LoggerFactory.getLogger(Switches.class);

  private final SwitchStore store;
  private final Clock clock;
  private final Duration poll;
  private final String stage;
  private final Set<String> applied;
  private final ScheduledExecutorService reader;
  private volatile Map<String, SwitchStore.Switch> current = Map.of();

  /** The version of each applied switch whose record in {@code ax_switch_applied} is written. */
  private final Map<String, Long> recorded = new HashMap<>();

  /**
   * @param stage the stage's name and node, as {@code ax switch} shows it ({@code
   *     ax-ingest@node-1})
   * @param applied the switches this stage applies: only their changes are logged here
   */
  public Switches(
      SwitchStore store, Clock clock, Duration poll, String stage, Set<String> applied) {
    this.store = store;
    this.clock = clock;
    this.poll = poll;
    this.stage = stage;
    this.applied = Set.copyOf(applied);
    this.reader = DaemonThreads.scheduler(stage + "-switches");
  }

  /** Reads once now (so a stage starts with the switches as they are), then every poll. */
  public Switches start() {
    refresh();
    reader.scheduleWithFixedDelay(
        this::refresh, poll.toMillis(), poll.toMillis(), TimeUnit.MILLISECONDS);
    return this;
  }

  public boolean retriesEnabled() {
    return isOn(RETRIES);
  }

  public boolean intakeEnabled() {
    return isOn(INTAKE);
  }

  /** Whether ingest reads {@code namespace}'s commands: {@code intake} and its own switch on. */
  public boolean intakeEnabled(Namespace namespace) {
    return isOn(INTAKE) && isOn(INTAKE + "." + namespace.name());
  }

  /**
   * Whether dispatchers may claim for {@code pool}: {@code dispatch}, its own switch, and for a
   * namespace's group with a pool of its own, {@code dispatch.<namespace>~*}, on. (AX's own pools,
   * {@code __overflow} and {@code __retry}, are shared by namespaces: a namespace's switch cannot
   * hold them; the reaper's {@link DispatchHold} still leaves their rows of it unclaimed.)
   */
  public boolean dispatchEnabled(String pool) {
    return isOn(DISPATCH)
        && isOn(DISPATCH + "." + pool)
        && (namespaceWide(pool) == null || isOn(DISPATCH + "." + namespaceWide(pool)));
  }

  /**
   * {@code <namespace>~*}, the switch name's tail that holds every group of the namespace of {@code
   * group} (a stored, qualified group); null for a group of the default namespace or one of AX's
   * own pools.
   */
  static String namespaceWide(String group) {
    int at = group.indexOf(Namespace.SEPARATOR);
    return at <= 0 || group.startsWith("__") ? null : group.substring(0, at + 1) + "*";
  }

  /**
   * What the {@code dispatch} switches hold: every group's due instances ({@code all}), or those of
   * the groups named, or of every group of a namespace named {@code <namespace>~*}.
   */
  public record DispatchHold(boolean all, Set<String> groups) {

    /** Nothing held. */
    public static final DispatchHold NONE = new DispatchHold(false, Set.of());

    public boolean holds(String group) {
      String namespaceWide = namespaceWide(group);
      return all
          || groups.contains(group)
          || (namespaceWide != null && groups.contains(namespaceWide));
    }
  }

  /** The groups whose due instances the {@code dispatch} switches hold now. */
  public DispatchHold dispatchHold() {
    Set<String> groups = new HashSet<>();
    for (SwitchStore.Switch s : current.values()) {
      if (s.name().startsWith(DISPATCH + ".") && s.value().equalsIgnoreCase("off")) {
        groups.add(s.name().substring(DISPATCH.length() + 1));
      }
    }
    return new DispatchHold(!isOn(DISPATCH), Set.copyOf(groups));
  }

  /** Whether dispatchers run one attempt at a time per pool: {@code serial} is {@code on}. */
  public boolean serial() {
    SwitchStore.Switch s = current.get(SERIAL);
    return s != null && s.value().equalsIgnoreCase("on");
  }

  /**
   * Whether this stage applies switch {@code name} ({@code dispatch.<group>} with dispatch, {@code
   * intake.<namespace>} with intake).
   */
  private boolean applies(String name) {
    return applied.contains(name)
        || (name.startsWith(DISPATCH + ".") && applied.contains(DISPATCH))
        || (name.startsWith(INTAKE + ".") && applied.contains(INTAKE));
  }

  /** A switch never set is on. */
  private boolean isOn(String name) {
    SwitchStore.Switch s = current.get(name);
    return s == null || !s.value().equalsIgnoreCase("off");
  }

  /** Reads the switches and logs each one whose version moved since the last read. */
  void refresh() {
    Map<String, SwitchStore.Switch> read;
    try {
      read = store.all();
    } catch (RuntimeException e) {
      log.warn("{}: could not read the switches, keeping the last values: {}", stage, e.toString());
      return;
    }
    Map<String, SwitchStore.Switch> before = current;
    for (SwitchStore.Switch s : read.values()) {
      SwitchStore.Switch old = before.get(s.name());
      if (applies(s.name()) && (old == null || old.version() != s.version())) {
        log.info(
            "{}: switch {} is {} (version {}, set by {}) and takes effect here now",
            stage,
            s.name(),
            s.value(),
            s.version(),
            s.updatedBy());
      }
    }
    current = new HashMap<>(read);
    recordApplied(read);
  }

  /** Writes the applied version of every switch this stage applies whose record is behind. */
  private void recordApplied(Map<String, SwitchStore.Switch> read) {
    for (SwitchStore.Switch s : read.values()) {
      Long done = recorded.get(s.name());
      if (!applies(s.name()) || (done != null && done == s.version())) {
        continue;
      }
      try {
        store.recordApplied(s.name(), stage, s.version(), clock.millis());
        recorded.put(s.name(), s.version());
      } catch (RuntimeException e) {
        log.warn(
            "{}: could not record that switch {} applies here; trying at the next read: {}",
            stage,
            s.name(),
            e.toString());
        return;
      }
    }
  }

  @Override
  public void close() {
    reader.shutdownNow();
  }
}
