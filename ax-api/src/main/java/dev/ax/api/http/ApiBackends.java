package dev.ax.api.http;

import dev.ax.api.read.MetricsSummary;
import dev.ax.api.write.DeadLetterActions;
import dev.ax.api.write.SwitchBoard;
import dev.ax.api.write.TaskCommands;
import javax.sql.DataSource;

/**
 * What the API reads and changes through: the database, the lifecycle commands, the dead-letter
 * actions and the switches (the same the CLI uses), and the stages' metrics. Immutable.
 */
public record ApiBackends(
    DataSource dataSource,
    TaskCommands taskCommands,
    DeadLetterActions deadLetters,
    SwitchBoard switches,
    MetricsSummary metrics) {}
