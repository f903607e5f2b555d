package dev.ax.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.ax.common.config.CommonConfig;
import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.kafka.LoopWatcher;
import dev.ax.common.stage.StageContext;
import dev.ax.common.store.Database;
import dev.ax.common.store.TaskStore;
import dev.ax.common.testing.TcpProxy;
import dev.ax.common.testing.TestRuntime;
import dev.ax.common.testing.TopicReader;
import dev.ax.embedded.DatabaseCoordinates;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A real database outage is not poison: with ingest's connections cut (a TCP relay in front of the
 * real server), commands wait, none is rejected or parked, and when the database is back every one
 * is stored.
 */
@ExtendWith(AxInfraExtension.class)
class IngestOutageIT {

  private static final int COMMANDS = 20;

  @Test
  void commandsWaitOutADatabaseOutageAndNoneIsRejected(AxTestEnv env) throws Exception {
    DatabaseCoordinates db = env.database();
    try (TestRuntime runtime = TestRuntime.open(env);
        TcpProxy proxy = TcpProxy.inFrontOf(db);
        HikariDataSource throughProxy =
            Database.open(
                proxy.jdbcUrl(db),
                db.user(),
                db.password(),
                // A borrow fails after 1 s, not 10, so the outage spans several tries of the batch.
                Database.Pool.of(4, "ingest-through-proxy")
                    .withConnectionTimeout(Duration.ofSeconds(1)));
        KafkaProducer<String, byte[]> producer =
            KafkaClients.producer(runtime.kafka(), "outage-producer");
        TopicReader rejected =
            new TopicReader(runtime.bootstrapServers(), runtime.topics().commandsRejected())) {
      StageContext context =
          new StageContext(
              CommonConfig.from(runtime.config()),
              runtime.kafka(),
              runtime.topics(),
              throughProxy,
              throughProxy,
              runtime.clock(),
              "ingest-1",
              new SimpleMeterRegistry(),
              LoopWatcher.LOG_ONLY);
      try (IngestStage ingest =
          new IngestStage(context, IngestConfig.from(runtime.config())).start()) {
        runtime.awaitGroupsAssigned(1, "ingest");
        proxy.cut();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < COMMANDS; i++) {
          String id = "outage-" + i;
          ids.add(id);
          producer
              .send(
                  new ProducerRecord<>(
                      runtime.topics().commands(),
                      id,
                      command(id).getBytes(StandardCharsets.UTF_8)))
              .get();
        }

        // Long enough for the loop to try the batch, and then its records one at a time, more
        // than OUTAGES_BEFORE_SINGLES times.
        await()
            .during(Duration.ofSeconds(10))
            .atMost(Duration.ofSeconds(20))
            .until(() -> rejected.poll().isEmpty());
        assertThat(context.meters().get("ax.records.parked").counter().count()).isZero();
        proxy.restore();

        TaskStore tasks = new TaskStore(runtime.dataSource());
        await().atMost(Duration.ofSeconds(60)).until(() -> tasks.findAll(ids).size() == COMMANDS);
        assertThat(rejected.poll()).isEmpty();
        assertThat(
                context.meters().find("ax.ingest.created.tasks").counters().stream()
                    .mapToDouble(c -> c.count())
                    .sum())
            .isEqualTo(COMMANDS);
      }
    }
  }

  private static String command(String taskId) {
    return "{\"v\":1,\"taskId\":\""
        + taskId
        + "\",\"trigger\":{\"type\":\"ONCE\",\"delayMs\":3600000},"
        + "\"executor\":{\"type\":\"IN_PROCESS\",\"handler\":\"noop\"},\"timeoutMs\":5000}";
  }
}
