package dev.ax.embedded.junit;

import dev.ax.embedded.DatabaseCoordinates;
import dev.ax.embedded.SharedInfrastructure;
import java.security.SecureRandom;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One test's slice of the {@link SharedInfrastructure}: a fresh, empty database of its own and a
 * topic prefix no other test uses. Obtain it as a parameter through {@link AxInfraExtension}.
 *
 * <p>Tests name their topics {@code topicPrefix() + "something"} and create them with {@link
 * #createTopics}. When the test is over ({@link #close}, called by JUnit), its topics and its
 * database are deleted in the background.
 *
 * <p>Immutable apart from the shared servers; thread-safe.
 */
public final class AxTestEnv implements AutoCloseable {

  private static final AtomicLong SEQUENCE = new AtomicLong();
  private static final Random RANDOM = new SecureRandom();
  private static final String LETTERS = "abcdefghijklmnopqrstuvwxyz";
  private static final String LETTERS_AND_DIGITS = LETTERS + "0123456789";

  private final SharedInfrastructure infrastructure;
  private final DatabaseCoordinates database;
  private final String topicPrefix;

  private AxTestEnv(
      SharedInfrastructure infrastructure, DatabaseCoordinates database, String topicPrefix) {
    this.infrastructure = infrastructure;
    this.database = database;
    this.topicPrefix = topicPrefix;
  }

  /** Starts the shared servers if needed, creates this test's database and picks its prefix. */
  static AxTestEnv create() {
    SharedInfrastructure infrastructure = SharedInfrastructure.get();
    long sequence = SEQUENCE.incrementAndGet();
    // The sequence makes names unique in this JVM, the random part across JVMs and runs that
    // share an external server. Letters after the digits keep the two parts unambiguous.
    String databaseName = "ax_" + sequence + "_" + random(LETTERS_AND_DIGITS, 6);
    String topicPrefix = "t" + sequence + random(LETTERS, 5) + "-";
    return new AxTestEnv(infrastructure, infrastructure.createDatabase(databaseName), topicPrefix);
  }

  /** Bootstrap servers of the shared broker. */
  public String bootstrapServers() {
    return infrastructure.bootstrapServers();
  }

  /** This test's own database, empty when the test starts. */
  public DatabaseCoordinates database() {
    return database;
  }

  /**
   * This test's topic prefix, e.g. {@code "t17qwxyz-"}: lower-case letters and digits, ending with
   * {@code '-'}.
   */
  public String topicPrefix() {
    return topicPrefix;
  }

  /**
   * Creates the topics (skipping existing ones) and waits until they are visible. Names are used as
   * given: prefix them with {@link #topicPrefix()}.
   *
   * @see SharedInfrastructure#createTopics(Map)
   */
  public void createTopics(Map<String, Integer> partitionsByTopic) {
    infrastructure.createTopics(partitionsByTopic);
  }

  /** Deletes this test's topics and database, in the background: JUnit calls it after the test. */
  @Override
  public void close() {
    infrastructure.release(topicPrefix, database);
  }

  @Override
  public String toString() {
    return "AxTestEnv[topicPrefix=" + topicPrefix + ", database=" + database + "]";
  }

  private static String random(String alphabet, int length) {
    StringBuilder result = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      result.append(alphabet.charAt(RANDOM.nextInt(alphabet.length())));
    }
    return result.toString();
  }
}
