package dev.ax.ingest;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;

/**
 * Ingest's counts of what its batches read and did: {@code ax.ingest.received} records, {@code
 * ax.ingest.rejected} by reason class, {@code ax.ingest.created.tasks}, {@code
 * ax.ingest.duplicates} (creates of a task that exists) and {@code ax.ingest.trigger.duplicates}
 * (dependency triggers applied before).
 *
 * <p>Thread-safe: the map is filled once, and the counters are.
 */
final class IngestCounters {

  private final Counter received;
  private final Map<RejectionClass, Counter> rejected;
  private final Counter created;
  private final Counter duplicates;
  private final Counter triggerDuplicates;

  IngestCounters(MeterRegistry meters) {
    this.received = meters.counter("ax.ingest.received");
    this.rejected = RejectionClass.counters(meters);
    this.created = meters.counter("ax.ingest.created.tasks");
    this.duplicates = meters.counter("ax.ingest.duplicates");
    this.triggerDuplicates = meters.counter("ax.ingest.trigger.duplicates");
  }

  /** One record read from the commands topic, whatever it holds. */
  void received() {
    received.increment();
  }

  /** One command refused for a reason of {@code reasonClass}. */
  void rejected(RejectionClass reasonClass) {
    rejected.get(reasonClass).increment();
  }

  /** One task stored. */
  void created() {
    created.increment();
  }

  /** One create of a task that exists: ignored. */
  void duplicate() {
    duplicates.increment();
  }

  /** {@code triggers} dependency triggers that had been applied before: ignored. */
  void triggerDuplicates(int triggers) {
    triggerDuplicates.increment(triggers);
  }
}
