package dev.ax.resolver;

import dev.ax.common.contract.DependencyEntry;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.kafka.Topics;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.Namespace;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.GlobalKTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.Stores;

/**
 * The dependency resolver's topology:
 *
 * <pre>
 * ax.flow.succeeded (key = flow run) ─ join ─ GlobalKTable(ax.task.dependencies, by upstream)
 *   ─ one record per downstream ─ JoinProcessor (store ax-flow-joins, keyed downstream|flowRun)
 *   ─ TRIGGER command ─► ax.task.commands (key = downstream)
 * </pre>
 *
 * The dispatchers write every successful completion to {@code ax.flow.succeeded} keyed by its flow
 * run, so all the successes a join waits for arrive on one partition and no repartition (one more
 * transaction on the way) is needed.
 *
 * <p>A FAILED, TIMEOUT or DEAD upstream never reaches the join. Run with {@code exactly_once_v2}, a
 * crash or rebalance neither loses nor repeats a trigger (and ingest's deterministic instance id
 * would absorb a repeat anyway).
 */
public final class ResolverTopology {

  private ResolverTopology() {}

  /** Writes a stored (qualified) task id as its namespace's users wrote it. */
  private static final Serde<String> LOCAL_IDS =
      Serdes.serdeFrom(
          (topic, id) ->
              id == null
                  ? null
                  : Serdes.String().serializer().serialize(topic, Namespace.localId(id)),
          Serdes.String().deserializer());

  public static Topology build(
      Topics topics, Duration retention, Duration sweepEvery, MeterRegistry meters) {
    JoinProcessor.triggerLateness(meters);
    StreamsBuilder builder = new StreamsBuilder();
    GlobalKTable<String, DependencyEntry> graph =
        builder.globalTable(
            topics.dependencies(),
            Consumed.with(Serdes.String(), JsonSerde.of(DependencyEntry.class)),
            Materialized.as("ax-dependency-graph"));
    builder.addStateStore(
        Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(JoinProcessor.STORE),
            Serdes.String(),
            JsonSerde.of(JoinState.class)));
    builder.stream(
            topics.flowSucceeded(),
            Consumed.with(Serdes.String(), JsonSerde.of(TaskCompletedEvent.class)))
        .filter((flowRunId, event) -> event != null && event.status() == InstanceStatus.SUCCESS)
        .join(graph, (flowRunId, event) -> event.taskId(), ResolverTopology::successes)
        // Keyed by flow run already: every join of a flow run is on this partition.
        .flatMapValues(successes -> successes)
        .process(() -> new JoinProcessor(retention, sweepEvery, meters), JoinProcessor.STORE)
        // Keyed by the downstream's stored id: onto its namespace's commands topic, the key written
        // as its namespace's producers write it (so it lands on the partition theirs do).
        .to(
            (downstream, command, context) -> topics.commands(Namespace.of(downstream)),
            Produced.with(LOCAL_IDS, Serdes.ByteArray()));
    return builder.build();
  }

  /** One success per task that waits for the upstream that just succeeded. */
  private static List<UpstreamSucceeded> successes(
      TaskCompletedEvent event, DependencyEntry entry) {
    String flowRunId = event.flowRunId() != null ? event.flowRunId() : event.instanceId();
    List<UpstreamSucceeded> successes = new ArrayList<>();
    if (entry == null || entry.downstreams() == null) {
      return successes;
    }
    for (DependencyEntry.Downstream downstream : entry.downstreams()) {
      successes.add(
          new UpstreamSucceeded(
              downstream.taskId(),
              downstream.upstreams(),
              event.taskId(),
              flowRunId,
              event.traceId(),
              event.finishedAtMs()));
    }
    return successes;
  }
}
