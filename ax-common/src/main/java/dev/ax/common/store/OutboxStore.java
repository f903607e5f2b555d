package dev.ax.common.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
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

  private final DataSource dataSource;

  public OutboxStore(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** Inserts {@code messages} under {@code token}, on the caller's open transaction. */
  public static void insert(
      Connection connection, List<OutboxMessage> messages, String token, long nowMs)
      throws SQLException {
    if (messages.isEmpty()) {
      return;
    }
    List<Object[]> rows = new ArrayList<>(messages.size());
    for (OutboxMessage message : messages) {
      rows.add(
          new Object[] {
            message.topic(),
            message.key(),
            message.payload(),
            message.headers().isEmpty() ? null : headersJson(message.headers()),
            token,
            nowMs
          });
    }
    Sql.insertRows(connection, "ax_outbox", COLUMNS, rows);
  }

  /** Deletes what the batches (or relay claims) with these tokens wrote; the number deleted. */
  public int deleteBatches(Collection<String> tokens) {
    if (tokens.isEmpty()) {
      return 0;
    }
    return Transactions.inTransaction(
        dataSource,
        "deleting " + tokens.size() + " sent outbox batch(es)",
        connection -> {
          int deleted = 0;
          for (List<String> chunk : Sql.chunks(tokens)) {
            try (PreparedStatement delete =
                connection.prepareStatement(
                    "DELETE FROM ax_outbox WHERE batch_token IN ("
                        + Sql.placeholders(chunk.size())
                        + ")")) {
              Sql.bindAll(delete, 1, chunk);
              deleted += delete.executeUpdate();
            }
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
    return Transactions.inTransaction(
        dataSource,
        "claiming unsent outbox rows",
        connection -> {
          try (PreparedStatement claim =
              connection.prepareStatement(
                  "UPDATE ax_outbox SET batch_token = ?, stamped_at_ms = ?"
                      + " WHERE stamped_at_ms < ? ORDER BY stamped_at_ms, id LIMIT ?")) {
            claim.setString(1, token);
            claim.setLong(2, nowMs);
            claim.setLong(3, olderThanMs);
            claim.setInt(4, limit);
            if (claim.executeUpdate() == 0) {
              return new Claimed(token, List.of());
            }
          }
          List<OutboxMessage> messages = new ArrayList<>();
          try (PreparedStatement read =
              connection.prepareStatement(
                  "SELECT topic, record_key, payload, headers FROM ax_outbox"
                      + " WHERE batch_token = ? ORDER BY id")) {
            read.setString(1, token);
            try (ResultSet rs = read.executeQuery()) {
              while (rs.next()) {
                String headers = rs.getString(4);
                messages.add(
                    new OutboxMessage(
                        rs.getString(1),
                        rs.getString(2),
                        rs.getBytes(3),
                        headers == null ? Map.of() : JSON.readValue(headers, HEADERS)));
              }
            } catch (JsonProcessingException e) {
              throw new IllegalStateException("unreadable outbox headers", e);
            }
          }
          return new Claimed(token, messages);
        });
  }

  /** Rows not yet confirmed as sent, for the backlog gauge. */
  public long pending() {
    return Transactions.read(
        dataSource,
        "counting outbox rows",
        connection -> {
          try (PreparedStatement count =
                  connection.prepareStatement("SELECT COUNT(*) FROM ax_outbox");
              ResultSet rs = count.executeQuery()) {
            rs.next();
            return rs.getLong(1);
          }
        });
  }

  private static String headersJson(Map<String, String> headers) {
    try {
      return JSON.writeValueAsString(headers);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("headers are strings", e);
    }
  }
}
