package dev.ax.common.store;

import static dev.ax.common.store.Jdbc.Binder.values;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The transactional outbox ({@code ax_outbox}): the events an outcome owes are inserted in the
 * outcome's own transaction ({@link #insert}), sent after the commit, and deleted by the token of
 * the batch that wrote them once the broker acknowledged every one ({@link #deleteBatches}). A row
 * nobody deleted within the relay's threshold is claimed by a relay under a new token ({@link
 * #claimStale}) and sent again: a crash between the commit and the send, or a broker outage, costs
 * a late or a duplicate event, never a missing one.
 *
 * <p>Thread-safe: stateless over a thread-safe data source.
 */
public final class OutboxStore {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<Map<String, String>> HEADERS = new TypeReference<>() {};
  private static final List<String> COLUMNS =
      List.of("topic", "record_key", "payload", "headers", "batch_token", "stamped_at_ms");

  /** Messages claimed by one relay pass, deletable by its token once sent. */
  public record Claimed(String token, List<OutboxMessage> messages) {}

  private final Jdbc jdbc;

  public OutboxStore(DataSource dataSource) {
    this.jdbc = new Jdbc(dataSource);
  }

  /** Inserts {@code messages} under {@code token}, on the caller's open transaction. */
  public static void insert(
      Connection connection, List<OutboxMessage> messages, String token, long nowMs)
      throws SQLException {
    if (messages.isEmpty()) {
      return;
    }
    Sql.insertRows(
        connection,
        "ax_outbox",
        COLUMNS,
        messages,
        message ->
            new Object[] {
              message.topic(),
              message.key(),
              message.payload(),
              message.headers().isEmpty() ? null : headersJson(message.headers()),
              token,
              nowMs
            });
  }

  /** Deletes what the batches (or relay claims) with these tokens wrote; the number deleted. */
  public int deleteBatches(Collection<String> tokens) {
    if (tokens.isEmpty()) {
      return 0;
    }
    return jdbc.inTransaction(
        "deleting " + tokens.size() + " sent outbox batch(es)",
        tx -> {
          int deleted = 0;
          for (List<String> chunk : Sql.chunks(tokens)) {
            deleted +=
                tx.update(
                    "DELETE FROM ax_outbox WHERE batch_token IN ("
                        + Sql.placeholders(chunk.size())
                        + ")",
                    values(chunk.toArray()));
          }
          return deleted;
        });
  }

  /**
   * Claims up to {@code limit} rows stamped before {@code olderThanMs}, oldest first, by giving
   * them a new token and stamp: another relay passes over them until they are that old again.
   */
  public Claimed claimStale(long olderThanMs, int limit, long nowMs) {
    String token = UUID.randomUUID().toString();
    return jdbc.inTransaction(
        "claiming unsent outbox rows",
        tx -> {
          int claimed =
              tx.update(
                  "UPDATE ax_outbox SET batch_token = ?, stamped_at_ms = ?"
                      + " WHERE stamped_at_ms < ? ORDER BY stamped_at_ms, id LIMIT ?",
                  values(token, nowMs, olderThanMs, limit));
          if (claimed == 0) {
            return new Claimed(token, List.of());
          }
          return new Claimed(
              token,
              tx.query(
                  "SELECT topic, record_key, payload, headers FROM ax_outbox"
                      + " WHERE batch_token = ? ORDER BY id",
                  values(token),
                  rs ->
                      new OutboxMessage(
                          rs.getString(1),
                          rs.getString(2),
                          rs.getBytes(3),
                          headers(rs.getString(4)))));
        });
  }

  /** Rows not yet confirmed as sent, for the backlog gauge. */
  public long pending() {
    return jdbc.queryLong("counting outbox rows", "SELECT COUNT(*) FROM ax_outbox", values());
  }

  private static String headersJson(Map<String, String> headers) {
    try {
      return JSON.writeValueAsString(headers);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("headers are strings", e);
    }
  }

  /** The headers stored as {@link #headersJson} wrote them; none for a NULL column. */
  private static Map<String, String> headers(String json) {
    if (json == null) {
      return Map.of();
    }
    try {
      return JSON.readValue(json, HEADERS);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("unreadable outbox headers", e);
    }
  }
}
