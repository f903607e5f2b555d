package dev.ax.resolver;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TriggerCommand;
import dev.ax.common.metrics.LatencyHistogram;
import dev.ax.common.model.Namespace;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The join of one downstream task in one flow run, in a state store keyed {@code
 * downstream|flowRun}: each upstream success is added to the set; when the set holds every
 * upstream, one TRIGGER command goes out (key = the downstream task id) and the join is marked
 * triggered, so a duplicate or late success triggers nothing more. Joins older than {@code
 * retention} are dropped by a wall-clock punctuation; one that never completed is logged with what
 * it still waited for and counted.
 *
 * <p>Kafka Streams calls it on one stream thread per task; it keeps no state outside the store. The
 * processors of every task count in the same meters (a registry returns one counter per name).
 */
final class JoinProcessor implements Processor<String, UpstreamSucceeded, String, byte[]> {

  static final String STORE = "ax-flow-joins";

  /** How often the stage's processors sweep joins older than their retention from the store. */
  static final Duration SWEEP_EVERY = Duration.ofMinutes(1);

  private static final Logger log = LoggerFactory.getLogger(JoinProcessor.class);

  private final Duration retention;
  private final Duration sweepEvery;
  private final Counter triggered;
  private final DistributionSummary triggerLateness;
  private final Counter duplicates;
  private final Counter dropped;
  private ProcessorContext<String, byte[]> context;
  private KeyValueStore<String, JoinState> store;

  JoinProcessor(Duration retention, Duration sweepEvery, MeterRegistry meters) {
    this.retention = retention;
    this.sweepEvery = sweepEvery;
    this.triggered = meters.counter("ax.resolver.triggered");
    this.triggerLateness = triggerLateness(meters);
    this.duplicates = meters.counter("ax.resolver.duplicate.successes");
    this.dropped = meters.counter("ax.resolver.joins.dropped");
  }

  @Override
  public void init(ProcessorContext<String, byte[]> context) {
    this.context = context;
    this.store = context.getStateStore(STORE);
    context.schedule(sweepEvery, PunctuationType.WALL_CLOCK_TIME, this::sweep);
  }

  /**
   * The histogram of upstream success to downstream TRIGGER; the topology registers it up front so
   * it is exported before the first stream task starts.
   */
  static DistributionSummary triggerLateness(MeterRegistry meters) {
    return LatencyHistogram.register(
        meters,
        "ax.resolver.trigger.lateness.ms",
        "upstream success to downstream TRIGGER: the TRIGGER's send minus the finish of the"
            + " upstream attempt that completed the join");
  }

  @Override
  public void process(Record<String, UpstreamSucceeded> record) {
    UpstreamSucceeded success = record.value();
    if (success == null) {
      return;
    }
    long nowMs = context.currentSystemTimeMs();
    String joinKey = success.joinKey();
    JoinState state = store.get(joinKey);
    if (state == null) {
      state =
          new JoinState(
              success.downstream(),
              success.flowRunId(),
              success.upstreams(),
              Set.of(),
              false,
              nowMs);
    }
    if (state.triggered()) {
      duplicates.increment();
      return;
    }
    Set<String> succeeded = new TreeSet<>(state.succeeded());
    succeeded.add(success.upstream());
    boolean complete = succeeded.containsAll(success.upstreams());
    store.put(
        joinKey,
        new JoinState(
            state.downstream(),
            state.flowRunId(),
            success.upstreams(),
            succeeded,
            complete,
            state.firstSeenMs()));
    if (complete) {
      triggered.increment();
      triggerLateness.record(Math.max(0, nowMs - success.succeededAtMs()));
      // The command goes to the downstream's namespace's topic (ResolverTopology), so it names the
      // task and the flow run as that namespace's producers do: without the namespace.
      TriggerCommand command =
          TriggerCommand.of(
              Namespace.localId(success.downstream()),
              Namespace.localId(success.flowRunId()),
              success.traceId(),
              nowMs,
              success.succeededAtMs());
      context.forward(record.withKey(success.downstream()).withValue(AxJson.write(command)));
      log.debug(
          "Flow run {}: every upstream of {} succeeded, triggered [traceId={}]",
          success.flowRunId(),
          success.downstream(),
          success.traceId());
    }
  }

  /** Drops joins older than the retention; one never triggered is logged and counted. */
  private void sweep(long nowMs) {
    try (KeyValueIterator<String, JoinState> all = store.all()) {
      while (all.hasNext()) {
        KeyValue<String, JoinState> entry = all.next();
        JoinState state = entry.value;
        if (state == null || nowMs - state.firstSeenMs() < retention.toMillis()) {
          continue;
        }
        store.delete(entry.key);
        if (!state.triggered()) {
          dropped.increment();
          log.warn(
              "Flow run {}: {} never ran; dropped after {} still waiting on {}",
              state.flowRunId(),
              state.downstream(),
              retention,
              state.missing());
        }
      }
    }
  }
}
