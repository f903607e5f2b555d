package dev.ax.ingest;

import dev.ax.common.model.Namespace;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Ingest's counts of what its batches read and did: {@code ax.ingest.received} records, {@code
 * ax.ingest.rejected} by reason class, {@code ax.ingest.created.tasks}, {@code
 * ax.ingest.duplicates} (creates of a task that exists) and {@code ax.ingest.trigger.duplicates}
 * (dependency triggers applied before). Received, rejected and created carry the {@code namespace}
 * of the topic read ({@code unknown} for a topic of no created namespace, so a flood of topics
 * cannot grow the series).
 *
 * <p>Thread-safe: the maps are concurrent, and the counters are.
 */
final class IngestCounters {

  /** A namespace's counters: as many as the namespaces created, and {@code unknown}. */
  private record NamespaceCounters(
      Counter received, Map<RejectionClass, Counter> rejected, Counter created) {}

  private final MeterRegistry meters;
  private final Map<String, NamespaceCounters> byNamespace = new ConcurrentHashMap<>();
  private final Counter duplicates;
  private final Counter triggerDuplicates;

  IngestCounters(MeterRegistry meters) {
    this.meters = meters;
    of(Namespace.DEFAULT_NAME); // the default namespace's series exist from the start
    throttled(Namespace.DEFAULT, 0); // never throttled, but the metric is on every scrape
    this.duplicates = meters.counter("ax.ingest.duplicates");
    this.triggerDuplicates = meters.counter("ax.ingest.trigger.duplicates");
  }

  /** One record read from {@code namespace}'s commands topic, whatever it holds. */
  void received(String namespace) {
    of(namespace).received().increment();
  }

  /** One command of {@code namespace} refused for a reason of {@code reasonClass}. */
  void rejected(String namespace, RejectionClass reasonClass) {
    of(namespace).rejected().get(reasonClass).increment();
  }

  /** {@code namespace} started waiting for its command rate. */
  void throttled(Namespace namespace) {
    throttled(namespace, 1);
  }

  private void throttled(Namespace namespace, int times) {
    meters.counter("ax.ingest.namespace.throttled", "namespace", namespace.name()).increment(times);
  }

  /** One task of {@code namespace} stored. */
  void created(String namespace) {
    of(namespace).created().increment();
  }

  private NamespaceCounters of(String namespace) {
    return byNamespace.computeIfAbsent(
        namespace,
        n ->
            new NamespaceCounters(
                meters.counter("ax.ingest.received", "namespace", n),
                RejectionClass.counters(meters, n),
                meters.counter("ax.ingest.created.tasks", "namespace", n)));
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
