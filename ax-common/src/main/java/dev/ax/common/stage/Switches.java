package dev.ax.common.stage;

import dev.ax.common.store.SwitchStore;
import dev.ax.common.thread.DaemonThreads;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The emergency switches as one stage sees them: read from the database every {@code poll}; each
 * change of a switch the stage applies is logged once by the stage when it takes effect there.
 * Until the first read succeeds, and while the database is away, the last values read hold (all on
 * at start).
 *
 * <p>Thread-safe: one thread reads the database; the getters read a volatile snapshot.
 */
public final class Switches implements AutoCloseable {

  /** {@code off}: every failure goes straight to a dead letter and pending retries are held. */
  public static final String RETRIES = "retries";

  /** {@code off}: ingest stops reading {@code ax.task.commands}; commands wait in Kafka. */
  public static final String INTAKE = "intake";

  /**
   * {@code off}: dispatchers claim nothing; due instances wait DISPATCHED. {@code dispatch.<group>}
   * does the same for one task group (one dispatcher pool).
   */
  public static final String DISPATCH = "dispatch";

  private static final Logger log = LoggerFactory.getLogger(Switches.class);

  private final SwitchStore store;
  private final Duration poll;
  private final String stage;
  private final Set<String> applied;
  private final ScheduledExecutorService reader;
  private volatile Map<String, SwitchStore.Switch> current = Map.of();

  /**
   * @param applied the switches this stage applies: only their changes are logged here
   */
  public Switches(SwitchStore store, Duration poll, String stage, Set<String> applied) {
    this.store = store;
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

  /** Whether dispatchers may claim for {@code pool}: {@code dispatch} and its own switch on. */
  public boolean dispatchEnabled(String pool) {
    return isOn(DISPATCH) && isOn(DISPATCH + "." + pool);
  }

  /** Whether this stage applies switch {@code name} ({@code dispatch.<group>} with dispatch). */
  private boolean applies(String name) {
    return applied.contains(name)
        || (name.startsWith(DISPATCH + ".") && applied.contains(DISPATCH));
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
  }

  @Override
  public void close() {
    reader.shutdownNow();
  }
}
