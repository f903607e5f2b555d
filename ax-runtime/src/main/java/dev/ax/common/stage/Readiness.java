package dev.ax.common.stage;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ax.common.contract.AxJson;
import dev.ax.common.thread.DaemonThreads;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a process is ready for work ({@code /health/ready}): every named check (database, broker,
 * a stage's own) passes. The checks run on one background thread every {@code interval}, never on a
 * probe's request, so a probe answers at once whatever a check waits for; a report older than three
 * intervals (the checks themselves hang) counts as not ready. Until the first round has run after
 * {@link #start} the process is not ready (it is starting).
 *
 * <p>Thread-safe: checks may be added from any thread; one thread runs them; {@link #report} reads
 * a volatile snapshot.
 */
public final class Readiness implements AutoCloseable {

  /** One readiness condition: empty when it holds, else why not (one line). */
  @FunctionalInterface
  public interface Check {
    Optional<String> problem();
  }

  /**
   * One round of the checks.
   *
   * @param checks each check's outcome by name: {@code ok}, or the problem
   * @param checkedAtNanos when the round ran, on the monotonic clock
   */
  public record Report(boolean ready, Map<String, String> checks, long checkedAtNanos) {

    /** {@code {"status":"ready"|"not ready","checks":{"database":"ok",...}}}. */
    public String json() {
      ObjectNode json = AxJson.MAPPER.createObjectNode();
      json.put("status", ready ? "ready" : "not ready");
      ObjectNode outcomes = json.putObject("checks");
      checks.forEach(outcomes::put);
      return AxJson.writeString(json);
    }
  }

  private static final Logger log = LoggerFactory.getLogger(Readiness.class);

  private final Map<String, Check> checks = new LinkedHashMap<>();
  private final Duration interval;
  private final LongSupplier nanos;
  private final ScheduledExecutorService runner = DaemonThreads.scheduler("ax-health");
  private volatile Report last;
  private volatile boolean lastReady;

  /**
   * @param interval how often the checks run
   * @param nanos the monotonic clock ({@code System::nanoTime}) reports are aged by
   */
  public Readiness(Duration interval, LongSupplier nanos) {
    this.interval = interval;
    this.nanos = nanos;
    this.last = new Report(false, Map.of("process", "starting"), nanos.getAsLong());
  }

  /** Adds (or replaces) the check named {@code name}; it counts from the next round. */
  public void add(String name, Check check) {
    synchronized (checks) {
      checks.put(name, check);
    }
  }

  /** Runs a round now, then every interval. */
  public Readiness start() {
    runner.scheduleWithFixedDelay(this::check, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    return this;
  }

  /** The last round, or not ready when it is older than three intervals. */
  public Report report() {
    Report report = last;
    long ageNanos = nanos.getAsLong() - report.checkedAtNanos();
    if (ageNanos > 3 * interval.toNanos()) {
      Map<String, String> stale = new LinkedHashMap<>(report.checks());
      stale.put("health", "checks have not run for " + ageNanos / 1_000_000 + " ms");
      return new Report(false, stale, report.checkedAtNanos());
    }
    return report;
  }

  /** One round: every check, each guarded so one that throws is a problem, not a lost round. */
  void check() {
    Map<String, Check> now;
    synchronized (checks) {
      now = new LinkedHashMap<>(checks);
    }
    Map<String, String> outcomes = new LinkedHashMap<>();
    boolean ready = !now.isEmpty();
    for (Map.Entry<String, Check> check : now.entrySet()) {
      Optional<String> problem;
      try {
        problem = check.getValue().problem();
      } catch (RuntimeException e) {
        problem = Optional.of(e.toString());
      }
      outcomes.put(check.getKey(), problem.orElse("ok"));
      ready &= problem.isEmpty();
    }
    if (now.isEmpty()) {
      outcomes.put("process", "starting");
    }
    if (ready != lastReady) {
      log.info("Now {}: {}", ready ? "ready" : "not ready", outcomes);
      lastReady = ready;
    }
    last = new Report(ready, Collections.unmodifiableMap(outcomes), nanos.getAsLong());
  }

  @Override
  public void close() {
    runner.shutdownNow();
  }
}
