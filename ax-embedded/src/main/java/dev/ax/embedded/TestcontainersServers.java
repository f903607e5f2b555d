package dev.ax.embedded;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.MySQLContainer;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The tests' shared servers as Docker containers, through Testcontainers, when {@value
 * ServerChoice#TESTCONTAINERS} is {@code true}: an {@code apache/kafka} broker and a MySQL 8
 * server, the images compose runs. The only class that uses Testcontainers, so nothing loads it
 * (nor reaches for Docker) unless the property is set. Testcontainers' Ryuk container removes both
 * containers when this JVM ends, even when it is killed. Thread-safe (stateless).
 */
final class TestcontainersServers {

  /** The broker image: the one compose/docker-compose.yml runs. */
  static final String KAFKA_IMAGE = "apache/kafka:4.0.0";

  /** The database image: the one compose/docker-compose.yml runs. */
  static final String MYSQL_IMAGE = "mysql:8.4";

  /** Tests create a database each ({@link DatabaseServer#createDatabase}): root may. */
  private static final String MYSQL_USER = "root";

  private static final String MYSQL_PASSWORD = "ax-test";

  private TestcontainersServers() {}

  /** Whether a Docker engine answers; the first call looks for one (quick when there is none). */
  static boolean dockerAvailable() {
    return DockerClientFactory.instance().isDockerAvailable();
  }

  /**
   * Starts a single-node KRaft broker and returns once it is running. Settings as the embedded
   * broker's ({@link KafkaBrokerProperties}) where tests may notice them: topics are never created
   * by a typo, the internal topics have 5 partitions and one replica, groups form at once.
   *
   * @throws RuntimeException if the container does not start
   */
  static RunningServer<String> startKafka() {
    KafkaContainer kafka =
        new KafkaContainer(DockerImageName.parse(KAFKA_IMAGE))
            .withEnv(KafkaBrokerProperties.asImageEnvironment(KafkaBrokerProperties.TEST_VISIBLE));
    kafka.start();
    return new RunningServer<>(
        kafka.getBootstrapServers(), "container " + KAFKA_IMAGE, kafka::stop);
  }

  /**
   * Starts a MySQL 8 server and returns once it accepts connections, with root's password. It runs
   * MySQL's defaults (among them {@code innodb_autoinc_lock_mode=2}, which AX wants, see {@code
   * ServerSettings}, and utf8mb4) except where Testcontainers' own my.cnf shrinks them for small
   * tests (packet size, buffer pool, table cache: put back to MySQL's defaults), and, as the
   * embedded server: at most 500 connections and {@code innodb_flush_log_at_trx_commit=2}, a test
   * database's trade of durability for speed.
   *
   * @throws RuntimeException if the container does not start
   */
  static RunningServer<DatabaseServer> startMysql() {
    MySQLContainer<?> mysql =
        new MySQLContainer<>(DockerImageName.parse(MYSQL_IMAGE))
            .withUsername(MYSQL_USER)
            .withPassword(MYSQL_PASSWORD)
            .withCommand(
                "--innodb-autoinc-lock-mode=2",
                "--innodb-flush-log-at-trx-commit=2",
                "--max-connections=500",
                "--max-allowed-packet=67108864",
                "--innodb-buffer-pool-size=134217728",
                "--table-open-cache=4000");
    mysql.start();
    DatabaseServer server =
        new DatabaseServer(
            JdbcUrls.server(mysql.getHost(), mysql.getMappedPort(MySQLContainer.MYSQL_PORT)),
            MYSQL_USER,
            MYSQL_PASSWORD);
    return new RunningServer<>(server, "container " + MYSQL_IMAGE, mysql::stop);
  }
}
