package dev.ax.ingest;

import dev.ax.common.config.AxConfig;
import dev.ax.common.config.ConfigException;
import dev.ax.common.contract.IntakeLimits;
import java.time.Duration;

/**
 * The ingest stage's configuration ({@link IngestKeys}), read once by {@link IngestMain} (or the
 * CLI) and handed to {@link IngestStage}. Immutable.
 *
 * @param defaultTimeout the timeout of a task that sets none
 * @param intakeLimits the bounds on a command: the four configured ones, the rest their defaults
 * @param announceHorizon instances due within it are announced on {@code ax.task.scheduled}
 * @param maxActiveTasksPerGroup a CREATE beyond it is rejected
 * @param maxActiveTasksPerNamespace a CREATE beyond it is rejected (not in the default namespace)
 * @param maxCommandsPerSecondPerNamespace a namespace over it waits (0: no limit)
 * @param dependencyRepublish how often the whole dependency graph is published again
 */
public record IngestConfig(
    Duration defaultTimeout,
    IntakeLimits intakeLimits,
    Duration announceHorizon,
    int maxActiveTasksPerGroup,
    int maxActiveTasksPerNamespace,
    int maxCommandsPerSecondPerNamespace,
    Duration dependencyRepublish) {

  /**
   * @throws ConfigException when the command bounds contradict the fixed ones
   */
  public static IngestConfig from(AxConfig config) {
    return new IngestConfig(
        config.get(IngestKeys.DEFAULT_TIMEOUT),
        intakeLimits(config),
        config.get(IngestKeys.ANNOUNCE_HORIZON),
        config.get(IngestKeys.MAX_ACTIVE_TASKS_PER_GROUP),
        config.get(IngestKeys.MAX_ACTIVE_TASKS_PER_NAMESPACE),
        config.get(IngestKeys.MAX_COMMANDS_PER_SECOND_PER_NAMESPACE),
        config.get(IngestKeys.DEPENDENCY_REPUBLISH));
  }

  private static IntakeLimits intakeLimits(AxConfig config) {
    try {
      return IntakeLimits.DEFAULTS.withConfigurable(
          config.get(IngestKeys.MAX_COMMAND_BYTES),
          config.get(IngestKeys.MAX_HORIZON),
          config.get(IngestKeys.MAX_PAST),
          config.get(IngestKeys.MIN_INTERVAL));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          "bad configuration of the command bounds ("
              + IngestKeys.MAX_COMMAND_BYTES.name()
              + ", "
              + IngestKeys.MAX_HORIZON.name()
              + ", "
              + IngestKeys.MAX_PAST.name()
              + ", "
              + IngestKeys.MIN_INTERVAL.name()
              + "): "
              + e.getMessage());
    }
  }
}
