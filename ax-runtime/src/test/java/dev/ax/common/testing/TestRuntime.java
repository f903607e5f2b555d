package dev.ax.common.testing;

import com.zaxxer.hikari.HikariDataSource;
import dev.ax.common.config.AxConfig;
import dev.ax.common.config.CommonConfig;
import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.kafka.KafkaConnection;
import dev.ax.common.kafka.LoopWatcher;
import dev.ax.common.kafka.Topics;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.stage.StageContext;
import dev.ax.common.store.BatchMove;
import dev.ax.common.store.Database;
import dev.ax.common.store.DueInstance;
import dev.ax.common.store.Jdbc;
import dev.ax.common.store.LeaseFence;
import dev.ax.common.store.LeaseStore;
import dev.ax.common.time.DatabaseClock;
import dev.ax.embedded.DatabaseCoordinates;
import dev.ax.embedded.junit.AxTestEnv;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.awaitility.Awaitility;

/**
 * Real parts for one test: the test's own database (migrated), its own topics (created), the
 * database clock, and stage contexts that differ only in node id, as separate processes would.
 */
public final class TestRuntime implements AutoCloseable {

  public static final int PARTITIONS = 4;

  private final AxTestEnv env;
  private final AxConfig config;
  private final HikariDataSource dataSource;
  private final DatabaseClock clock;
  private final Topics topics;
  private final Map<String, String> settings;

  private TestRuntime(AxTestEnv env, Map<String, String> overrides) {
    this.env = env;
    Map<String, String> all = new HashMap<>();
    all.put("AX_METRICS_BIND", "off");
    all.put("AX_SHUTDOWN_GRACE", "5s");
    all.putAll(overrides);
    this.settings = Map.copyOf(all);
    this.config = AxConfig.load(Map.of(), Map.of(), all);
    DatabaseCoordinates db = env.database();
    this.dataSource = Database.open(db.jdbcUrl(), db.user(), db.password(), 20, "test");
    SchemaTemplate.copyInto(dataSource);
    Database.migrate(dataSource); // finds the copy current: the check every stage start makes
    this.clock = DatabaseClock.start(dataSource, Duration.ofSeconds(30));
    this.topics = new Topics(env.topicPrefix());
    env.createTopics(topics.all(PARTITIONS));
  }

  public static TestRuntime open(AxTestEnv env) {
    return new TestRuntime(env, Map.of());
  }

  public static TestRuntime open(AxTestEnv env, Map<String, String> configOverrides) {
    return new TestRuntime(env, configOverrides);
  }

  /**
   * A stage context as a process named {@code nodeId} would have it (own meter registry); a stage's
   * own configuration comes from {@link #config()} or {@link #config(Map)}.
   */
  public StageContext context(String nodeId) {
    return new StageContext(
        CommonConfig.from(config),
        kafka(),
        topics,
        dataSource,
        dataSource,
        clock,
        nodeId,
        new SimpleMeterRegistry(),
        LoopWatcher.LOG_ONLY);
  }

  /** This runtime's configuration with further settings, for one stage of the test only. */
  public AxConfig config(Map<String, String> stageSettings) {
    Map<String, String> all = new HashMap<>(settings);
    all.putAll(stageSettings);
    return AxConfig.load(Map.of(), Map.of(), all);
  }

  /**
   * Waits until each consumer group named (by stage, e.g. "dispatcher") has {@code members} members
   * holding partitions, so a test's clock does not start while a stage is still joining.
   */
  public void awaitGroupsAssigned(int members, String... stages) {
    try (Admin admin = KafkaClients.admin(kafka())) {
      for (String stage : stages) {
        String group = topics.group(stage);
        Awaitility.await()
            .atMost(Duration.ofSeconds(60))
            .ignoreExceptions() // the group does not exist until its first member joins
            .until(
                () ->
                    admin
                            .describeConsumerGroups(List.of(group))
                            .all()
                            .get(10, TimeUnit.SECONDS)
                            .get(group)
                            .members()
                            .stream()
                            .filter(m -> !m.assignment().topicPartitions().isEmpty())
                            .count()
                        == members);
      }
    }
  }

  /**
   * Marks instances DISPATCHED as a ticker leader would: takes the ticker lease as {@code holder},
   * marks, and releases the lease again so a real ticker can take it at once.
   */
  public List<DueInstance> markDispatchedAsLeader(
      String holder, List<String> instanceIds, long nowMs) {
    LeaseStore leases = new LeaseStore(dataSource);
    LeaseStore.Lease lease =
        leases.tryAcquire(LeaseFence.TICKER, holder, Duration.ofSeconds(30)).orElseThrow();
    try {
      return markDispatched(
          instanceIds, new LeaseFence(LeaseFence.TICKER, holder, lease.epoch()), nowMs);
    } finally {
      leases.release(lease);
    }
  }

  /**
   * SCHEDULED → DISPATCHED at the fence's epoch, audited as the fence's holder, only while the
   * fence holds: the move the ticker's firing makes (its {@code FiringStore}, which tests of
   * ax-runtime cannot reach), for tests that need rows dispatched without a ticker.
   *
   * @return the instances moved (none when the fence is stale)
   */
  public List<DueInstance> markDispatched(List<String> instanceIds, LeaseFence fence, long nowMs) {
    BatchMove<DueInstance> due =
        BatchMove.from(InstanceStatus.SCHEDULED)
            .<DueInstance>to(InstanceStatus.DISPATCHED)
            .set("epoch = ?, dispatched_at_ms = ?", fence.epoch(), nowMs)
            .fencedBy(fence)
            .readBack(DueInstance.COLUMNS, DueInstance::read)
            .audit(fence.holder(), "due");
    return new Jdbc(dataSource).move("instance_id", instanceIds, due, nowMs);
  }

  public HikariDataSource dataSource() {
    return dataSource;
  }

  public DatabaseClock clock() {
    return clock;
  }

  public Topics topics() {
    return topics;
  }

  public String bootstrapServers() {
    return env.bootstrapServers();
  }

  /** The test broker, reached without TLS or SASL. */
  public KafkaConnection kafka() {
    return KafkaConnection.plaintext(env.bootstrapServers());
  }

  public AxConfig config() {
    return config;
  }

  @Override
  public void close() {
    clock.close();
    dataSource.close();
  }
}
