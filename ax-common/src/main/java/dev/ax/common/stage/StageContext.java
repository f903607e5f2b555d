package dev.ax.common.stage;

import dev.ax.common.config.AxConfig;
import dev.ax.common.kafka.Topics;
import dev.ax.common.time.Clock;
import io.micrometer.core.instrument.MeterRegistry;
import javax.sql.DataSource;

/**
 * What every stage is wired with: where Kafka and the database are, which topics, which clock, who
 * this node is, where metrics go. Immutable; the parts are thread-safe.
 */
public record StageContext(
    AxConfig config,
    String bootstrapServers,
    Topics topics,
    DataSource dataSource,
    Clock clock,
    String nodeId,
    MeterRegistry meters) {}
