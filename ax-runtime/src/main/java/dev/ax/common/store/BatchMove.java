package dev.ax.common.store;

import dev.ax.common.model.InstanceStatus;
import dev.ax.common.model.StatusTransitions;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One batch transition of {@code ax_instance} rows, as {@link BatchMover} runs it: {@code from →
 * to}, setting more columns, restricted by more conditions and by a lease fence, audited by an
 * actor with a reason, the won rows read back. Built with {@link #from}; immutable and thread-safe
 * once built.
 *
 * <pre>{@code
 * BatchMove.from(RETRYING).to(DISPATCHED)
 *     .set("dispatched_at_ms = ?", nowMs)
 *     .where("next_attempt_at_ms <= ?", nowMs)
 *     .readBack(DueInstance.COLUMNS, DueInstance::read)
 *     .audit(actor, "backoff over: next attempt dispatched");
 * }</pre>
 *
 * @param <T> what a won row is read back as
 */
public final class BatchMove<T> {

  /** Reads one won row. */
  @FunctionalInterface
  public interface RowReader<T> {
    T read(ResultSet rs) throws SQLException;
  }

  final InstanceStatus from;
  final InstanceStatus to;
  final String setClause;
  final List<Object> setValues;
  final String extraWhere;
  final List<Object> extraWhereValues;
  final LeaseFence fence;
  final String readColumns;
  final RowReader<T> reader;
  final String actor;
  final String reason;
  final String auditedAttempt;

  private BatchMove(Builder<T> b, String actor, String reason) {
    this.from = b.from;
    this.to = b.to;
    this.setClause = String.join(", ", b.setClauses);
    this.setValues = List.copyOf(b.setValues);
    this.extraWhere =
        b.conditions.stream().map(condition -> " AND " + condition).reduce("", String::concat);
    this.extraWhereValues = List.copyOf(b.conditionValues);
    this.fence = b.fence;
    this.readColumns = b.readColumns;
    this.reader = b.reader;
    this.auditedAttempt = b.auditedAttempt;
    this.actor = Objects.requireNonNull(actor, "actor");
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  /** Starts a move of the rows in {@code from}. */
  public static Stage from(InstanceStatus from) {
    return new Stage(from);
  }

  /** The reason the audit rows give, also what a failure names. */
  public String reason() {
    return reason;
  }

  /** The first step of the builder: where the rows go. */
  public static final class Stage {
    private final InstanceStatus from;

    private Stage(InstanceStatus from) {
      this.from = from;
    }

    /**
     * @throws IllegalStateException if {@code from → to} is not a legal transition
     */
    public <T> Builder<T> to(InstanceStatus to) {
      StatusTransitions.require(from, to);
      return new Builder<>(from, to);
    }
  }

  /**
   * The rest of the move. Not thread-safe; {@link #audit} ends it. {@link #readBack} is required.
   */
  public static final class Builder<T> {
    private final InstanceStatus from;
    private final InstanceStatus to;
    private final List<String> setClauses = new ArrayList<>();
    private final List<Object> setValues = new ArrayList<>();
    private final List<String> conditions = new ArrayList<>();
    private final List<Object> conditionValues = new ArrayList<>();
    private LeaseFence fence;
    private String readColumns;
    private RowReader<T> reader;
    private String auditedAttempt = "attempt";

    private Builder(InstanceStatus from, InstanceStatus to) {
      this.from = from;
      this.to = to;
    }

    /** Also sets {@code assignments} (e.g. {@code "owner = ?, lease_until_ms = ?"}) to values. */
    public Builder<T> set(String assignments, Object... values) {
      setClauses.add(assignments);
      setValues.addAll(List.of(values));
      return this;
    }

    /** Moves only the rows that also meet {@code condition} (with its values), ANDed. */
    public Builder<T> where(String condition, Object... values) {
      conditions.add(condition);
      conditionValues.addAll(List.of(values));
      return this;
    }

    /** Moves only while {@code fence} holds (a stale leader moves nothing). */
    public Builder<T> fencedBy(LeaseFence fence) {
      this.fence = Objects.requireNonNull(fence, "fence");
      return this;
    }

    /**
     * The attempt each audit row gives, as an SQL expression over the moved row; by default its
     * {@code attempt} after the move. A move that changes the attempt names the one it moved from.
     */
    public Builder<T> auditedAttempt(String expression) {
      this.auditedAttempt = Objects.requireNonNull(expression, "expression");
      return this;
    }

    /** Reads each won row back as {@code columns} through {@code reader}. */
    public Builder<T> readBack(String columns, RowReader<T> reader) {
      this.readColumns = Objects.requireNonNull(columns, "columns");
      this.reader = Objects.requireNonNull(reader, "reader");
      return this;
    }

    /**
     * Ends the move: its audit rows name {@code actor} and give {@code reason}.
     *
     * @throws IllegalStateException without {@link #readBack} or without any {@link #set}
     */
    public BatchMove<T> audit(String actor, String reason) {
      if (reader == null) {
        throw new IllegalStateException("a batch move reads its won rows back: readBack first");
      }
      if (setClauses.isEmpty()) {
        throw new IllegalStateException("a batch move sets at least one more column");
      }
      return new BatchMove<>(this, actor, reason);
    }
  }
}
