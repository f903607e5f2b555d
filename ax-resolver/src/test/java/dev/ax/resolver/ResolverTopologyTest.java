package dev.ax.resolver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.DependencyEntry;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.contract.TriggerCommand;
import dev.ax.common.kafka.Topics;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.TriggerType;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The resolver's topology on Kafka Streams' TopologyTestDriver: no broker, real Streams code. */
class ResolverTopologyTest {

  private static final Duration RETENTION = Duration.ofHours(1);

  @TempDir Path stateDir;

  private final Topics topics = new Topics("");

  /** The test driver's wall clock at the start: the resolver's "now". */
  private static final Instant WALL_START = Instant.ofEpochMilli(1_000_000);

  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private TopologyTestDriver driver;
  private TestInputTopic<String, byte[]> graph;
  private TestInputTopic<String, byte[]> completed;
  private TestOutputTopic<String, byte[]> commands;

  @BeforeEach
  void setUp() {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "resolver-test");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    driver =
        new TopologyTestDriver(
            ResolverTopology.build(topics, RETENTION, Duration.ofMinutes(1), meters),
            props,
            WALL_START);
    graph =
        driver.createInputTopic(
            topics.dependencies(), new StringSerializer(), new ByteArraySerializer());
    completed =
        driver.createInputTopic(
            topics.flowSucceeded(), new StringSerializer(), new ByteArraySerializer());
    commands =
        driver.createOutputTopic(
            topics.commands(), new StringDeserializer(), new ByteArrayDeserializer());
  }

  @AfterEach
  void tearDown() {
    driver.close();
  }

  /** The graph as ingest publishes it: per upstream, every task waiting for it. */
  private void dependsOn(String downstream, String... upstreams) {
    for (String upstream : upstreams) {
      graph.pipeInput(
          upstream,
          AxJson.write(
              new DependencyEntry(
                  1,
                  upstream,
                  List.of(new DependencyEntry.Downstream(downstream, List.of(upstreams))))));
    }
  }

  private void completes(String taskId, String flowRunId, InstanceStatus status) {
    completes(taskId, flowRunId, status, 1);
  }

  private void completes(
      String taskId, String flowRunId, InstanceStatus status, long finishedAtMs) {
    completed.pipeInput(
        flowRunId,
        AxJson.write(
            new TaskCompletedEvent(
                1,
                taskId,
                taskId + "@" + flowRunId,
                1,
                status,
                0,
                0,
                0,
                finishedAtMs,
                1,
                0,
                "trace-" + flowRunId,
                status == InstanceStatus.SUCCESS ? null : "boom",
                "node",
                status == InstanceStatus.SUCCESS ? InstanceStatus.SUCCESS : InstanceStatus.DEAD,
                flowRunId,
                TriggerType.DEPENDENCY,
                null)));
  }

  private List<TriggerCommand> triggers() {
    return commands.readValuesToList().stream()
        .map(bytes -> AxJson.read(bytes, TriggerCommand.class))
        .toList();
  }

  @Test
  void aChainTriggersTheNextTaskInTheSameFlowRun() {
    dependsOn("b", "a");
    dependsOn("c", "b");

    completes("a", "run-1", InstanceStatus.SUCCESS);
    assertThat(triggers())
        .singleElement()
        .satisfies(
            t -> {
              assertThat(t.taskId()).isEqualTo("b");
              assertThat(t.flowRunId()).isEqualTo("run-1");
              assertThat(t.type()).isEqualTo("TRIGGER");
              assertThat(t.traceId()).isEqualTo("trace-run-1");
            });
    completes("b", "run-1", InstanceStatus.SUCCESS);
    assertThat(triggers()).extracting(TriggerCommand::taskId).containsExactly("c");
  }

  @Test
  void theTriggerLatenessCountsFromTheUpstreamSuccessThatCompletedTheJoin() {
    assertThat(meters.find("ax.resolver.trigger.lateness.ms").summary())
        .as("registered before the first success")
        .isNotNull();
    dependsOn("c", "a", "b");

    completes("a", "run-1", InstanceStatus.SUCCESS, WALL_START.toEpochMilli() - 900);
    completes("b", "run-1", InstanceStatus.SUCCESS, WALL_START.toEpochMilli() - 250);

    assertThat(triggers()).extracting(TriggerCommand::taskId).containsExactly("c");
    DistributionSummary lateness = meters.get("ax.resolver.trigger.lateness.ms").summary();
    assertThat(lateness.count()).as("one trigger, one sample").isEqualTo(1);
    assertThat(lateness.totalAmount()).isEqualTo(250.0);
  }

  @Test
  void aFanOutTriggersEveryDownstream() {
    graph.pipeInput(
        "a",
        AxJson.write(
            new DependencyEntry(
                1,
                "a",
                List.of(
                    new DependencyEntry.Downstream("b", List.of("a")),
                    new DependencyEntry.Downstream("c", List.of("a"))))));

    completes("a", "run-1", InstanceStatus.SUCCESS);

    assertThat(triggers()).extracting(TriggerCommand::taskId).containsExactlyInAnyOrder("b", "c");
  }

  @Test
  void aJoinOfTwoFiresOnceBothSucceededInTheSameFlowRun() {
    dependsOn("c", "a", "b");

    completes("a", "run-1", InstanceStatus.SUCCESS);
    completes("b", "run-2", InstanceStatus.SUCCESS); // another flow run: no help to run-1
    assertThat(triggers()).isEmpty();
    completes("b", "run-1", InstanceStatus.SUCCESS);

    assertThat(triggers())
        .singleElement()
        .satisfies(t -> assertThat(t.flowRunId()).isEqualTo("run-1"));
  }

  @Test
  void aJoinOfThreeWaitsForAllThree() {
    dependsOn("d", "a", "b", "c");

    completes("a", "run-1", InstanceStatus.SUCCESS);
    completes("b", "run-1", InstanceStatus.SUCCESS);
    assertThat(triggers()).isEmpty();
    completes("c", "run-1", InstanceStatus.SUCCESS);

    assertThat(triggers()).extracting(TriggerCommand::taskId).containsExactly("d");
  }

  @Test
  void aFailedTimedOutOrDeadUpstreamTriggersNothing() {
    dependsOn("b", "a");

    completes("a", "run-1", InstanceStatus.FAILED);
    completes("a", "run-2", InstanceStatus.TIMEOUT);
    completes("a", "run-3", InstanceStatus.DEAD);

    assertThat(triggers()).isEmpty();
  }

  @Test
  void duplicateCompletionEventsTriggerOnce() {
    dependsOn("c", "a", "b");

    completes("a", "run-1", InstanceStatus.SUCCESS);
    completes("a", "run-1", InstanceStatus.SUCCESS);
    completes("b", "run-1", InstanceStatus.SUCCESS);
    completes("b", "run-1", InstanceStatus.SUCCESS);
    completes("a", "run-1", InstanceStatus.SUCCESS);

    assertThat(triggers()).hasSize(1);
    assertThat(meters.counter("ax.resolver.duplicate.successes").count()).isEqualTo(2.0);
  }

  @Test
  void outOfOrderCompletionsStillJoin() {
    dependsOn("c", "a", "b");

    completes("b", "run-1", InstanceStatus.SUCCESS);
    completes("a", "run-1", InstanceStatus.SUCCESS);

    assertThat(triggers()).extracting(TriggerCommand::taskId).containsExactly("c");
  }

  @Test
  void aJoinThatNeverCompletesIsDroppedAfterTheRetentionAndCounted() {
    dependsOn("c", "a", "b");
    completes("a", "run-1", InstanceStatus.SUCCESS);

    driver.advanceWallClockTime(RETENTION.plusMinutes(2));
    completes("b", "run-1", InstanceStatus.SUCCESS); // too late: the join starts afresh

    assertThat(meters.counter("ax.resolver.joins.dropped").count()).isEqualTo(1.0);
    assertThat(triggers()).isEmpty();
  }

  @Test
  void anUpstreamNobodyWaitsForTriggersNothing() {
    completes("lonely", "run-1", InstanceStatus.SUCCESS);
    assertThat(triggers()).isEmpty();
  }
}
