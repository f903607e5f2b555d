/**
 * Real servers for tests and laptop runs, in or beside this JVM: a single-node KRaft Kafka broker
 * ({@link dev.ax.embedded.EmbeddedKafka}) and a MariaDB server speaking the MySQL protocol ({@link
 * dev.ax.embedded.EmbeddedDatabase}).
 *
 * <ul>
 *   <li>Tests use {@link dev.ax.embedded.SharedInfrastructure}, one pair of servers per JVM,
 *       usually through {@link dev.ax.embedded.junit.AxInfraExtension}.
 *   <li>The laptop launcher uses {@link dev.ax.embedded.EmbeddedStack}, which keeps its data in a
 *       work directory across restarts.
 * </ul>
 *
 * Everything listens on 127.0.0.1 only. Clients reach the database with mysql-connector-j through
 * {@code jdbc:mysql://} URLs. With the system property {@code ax.it.testcontainers=true}, the
 * tests' servers run in Docker containers instead ({@code apache/kafka} and MySQL 8 through
 * Testcontainers), on the Docker host's mapped ports.
 */
package dev.ax.embedded;
