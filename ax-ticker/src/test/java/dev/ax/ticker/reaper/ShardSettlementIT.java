package dev.ax.ticker.reaper;

import static dev.ax.common.testing.TestTasks.newTask;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ax.common.contract.AxJson;
import dev.ax.common.contract.TaskCompletedEvent;
import dev.ax.common.kafka.KafkaClients;
import dev.ax.common.model.InstanceStatus;
import dev.ax.common.store.OutboxStore;
import dev.ax.common.store.ShardEvents;
import dev.ax.common.store.ShardFirings;
import dev.ax.common.store.Transactions;
import dev.ax.common.testing.StoreFixture;
import dev.ax.common.testing.TopicReader;
import dev.ax.embedded.junit.AxInfraExtension;
import dev.ax.embedded.junit.AxTestEnv;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The reaper settles a sharded firing whose shards ended without a dispatcher settling it (here:
 * all cancelled by a lifecycle command before any was claimed): CANCELLED, once, with one aggregate
 * completion event naming the cancelled shards; a firing whose shards are still live is left.
 */
@ExtendWith(AxInfraExtension.class)
class ShardSettlementIT {

  @RegisterExtension final StoreFixture store;

  ShardSettlementIT(AxTestEnv env) {
    store = StoreFixture.open(env);
  }

  @Test
  void aFiringWhoseShardsWereAllCancelledIsSettledCancelledOnceWithItsEvent() throws Exception {
    store.tasks().create(List.of(newTask("job", 1000), newTask("busy", 1000)), "test", 1);
    for (String firing : List.of("job@1000", "busy@1000")) {
      sql(
          "UPDATE ax_instance SET status = 'RUNNING', owner = 'd1', attempt = 1,"
              + " claimed_at_ms = 1100 WHERE instance_id = '"
              + firing
              + "'");
      String taskId = firing.substring(0, firing.indexOf('@'));
      Transactions.inTransaction(
          store.runtime().dataSource(),
          "fan out",
          connection ->
              ShardFirings.fanOut(
                  connection,
                  new ShardFirings.Firing(firing, taskId, 1, 1, 1000, "trace", firing),
                  2,
                  "d1",
                  1,
                  1200));
    }
    sql("UPDATE ax_instance SET status = 'CANCELLED' WHERE shard_of = 'job@1000'");
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (KafkaProducer<String, byte[]> producer =
            KafkaClients.producer(store.runtime().kafka(), "reaper-test");
        TopicReader completed =
            new TopicReader(
                store.runtime().bootstrapServers(), store.runtime().topics().completed())) {
      ShardSettlement settlement =
          new ShardSettlement(
              store.runtime().dataSource(),
              new ShardEvents(store.runtime().topics(), "reaper-node"),
              new EndedRunEmitter(
                  producer,
                  store.runtime().topics(),
                  new OutboxStore(store.runtime().dataSource())),
              500,
              meters);

      settlement.pass("reaper", 2000);
      settlement.pass("reaper", 2100);

      assertThat(status("job@1000")).isEqualTo("CANCELLED");
      assertThat(status("busy@1000")).as("its shards are still DISPATCHED").isEqualTo("RUNNING");
      assertThat(meters.counter("ax.reaper.shard.firings.settled").count()).isEqualTo(1);
      await().atMost(Duration.ofSeconds(30)).until(() -> !completed.poll().isEmpty());
      List<TaskCompletedEvent> events =
          completed.poll().stream()
              .map(r -> AxJson.read(r.value(), TaskCompletedEvent.class))
              .toList();
      assertThat(events)
          .singleElement()
          .satisfies(
              event -> {
                assertThat(event.instanceId()).isEqualTo("job@1000");
                assertThat(event.status()).isEqualTo(InstanceStatus.CANCELLED);
                assertThat(event.shards().cancelled()).containsExactly(0, 1);
                assertThat(event.error()).isEqualTo("shards cancelled: 0, 1");
                assertThat(event.node()).isEqualTo("reaper-node");
              });
    }
  }

  private String status(String instanceId) throws Exception {
    try (Connection connection = store.runtime().dataSource().getConnection();
        PreparedStatement read =
            connection.prepareStatement("SELECT status FROM ax_instance WHERE instance_id = ?")) {
      read.setString(1, instanceId);
      try (ResultSet rs = read.executeQuery()) {
        rs.next();
        return rs.getString(1);
      }
    }
  }

  private void sql(String statement) throws Exception {
    try (Connection connection = store.runtime().dataSource().getConnection();
        PreparedStatement update = connection.prepareStatement(statement)) {
      update.execute();
    }
  }
}
