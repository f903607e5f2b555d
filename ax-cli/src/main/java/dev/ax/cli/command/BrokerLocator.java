package dev.ax.cli.command;

import dev.ax.cli.local.UpEnvFile;
import dev.ax.common.config.CommonConfig;
import dev.ax.common.config.CommonKeys;
import dev.ax.common.kafka.KafkaConnection;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Where {@code ax submit} sends: {@code AX_KAFKA_BOOTSTRAP} (with {@code AX_TOPIC_PREFIX}) if set,
 * else the {@code up.env} a running {@code ax up} wrote into the work directory (its prefix, unless
 * {@code AX_TOPIC_PREFIX} is set). Stateless.
 */
final class BrokerLocator {

  /**
   * @param source how it was found, for the user: the variable or the file
   */
  record Target(KafkaConnection kafka, String topicPrefix, String source) {

    String bootstrapServers() {
      return kafka.bootstrapServers();
    }

    /** What to check when the broker does not answer. */
    String hint() {
      return source.equals(CommonKeys.KAFKA_BOOTSTRAP.name())
          ? "Is the broker in " + source + " running?"
          : "Is `ax up` still running? (it removes "
              + source
              + " when it stops; a file left behind means it was killed)";
    }
  }

  private BrokerLocator() {}

  /**
   * @throws CliFailure when neither names a broker
   */
  static Target locate(CommonConfig config, Path workDir) {
    if (!config.kafkaBootstrap().isBlank()) {
      return new Target(
          new KafkaConnection(config.kafkaBootstrap(), config.kafkaClientProperties()),
          config.topicPrefix(),
          CommonKeys.KAFKA_BOOTSTRAP.name());
    }
    Optional<UpEnvFile.Contents> upEnv = UpEnvFile.read(workDir);
    if (upEnv.isPresent()) {
      String prefix =
          config.topicPrefix().isBlank() ? upEnv.get().topicPrefix() : config.topicPrefix();
      return new Target(
          new KafkaConnection(upEnv.get().bootstrapServers(), config.kafkaClientProperties()),
          prefix,
          UpEnvFile.path(workDir).toString());
    }
    throw new CliFailure(
        ExitCodes.BAD_CONFIG,
        "no Kafka to send to: start AX with `ax up` (it writes "
            + UpEnvFile.path(workDir)
            + ") or set AX_KAFKA_BOOTSTRAP=host:port");
  }
}
