package dev.ax.common.model;

import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * A table of the moves allowed between the values of one state enum: {@link TaskState}, {@link
 * DeadLetterState} and, through {@link StatusTransitions}, {@link InstanceStatus} each keep theirs
 * in one. A move not in the table is a bug, and {@link #require} says so loudly.
 *
 * <p>Filled by {@link #allow} while its owner's class initialises, read-only after: safe to read
 * from any thread, since class initialisation publishes it.
 *
 * @param <S> the state enum
 */
final class Transitions<S extends Enum<S>> {

  /** What a move is called in the error of {@link #require}, e.g. "task state move". */
  private final String moveName;

  private final Map<S, Set<S>> allowed;

  /** A table without moves: every value of {@code type} is final until {@link #allow}ed more. */
  Transitions(Class<S> type, String moveName) {
    this.moveName = moveName;
    this.allowed = new EnumMap<>(type);
    for (S state : type.getEnumConstants()) {
      allowed.put(state, EnumSet.noneOf(type));
    }
  }

  /** Adds the moves {@code from -> to} for each of {@code to}; only during class initialisation. */
  @SafeVarargs
  final Transitions<S> allow(S from, S... to) {
    Collections.addAll(allowed.get(from), to);
    return this;
  }

  /** True when {@code from -> to} is in the table. */
  boolean isAllowed(S from, S to) {
    return allowed.get(from).contains(to);
  }

  /** The states {@code from} may move to (a copy). */
  Set<S> allowedFrom(S from) {
    return EnumSet.copyOf(allowed.get(from));
  }

  /**
   * @throws IllegalStateException if {@code from -> to} is not in the table: a bug, not a lost race
   */
  void require(S from, S to) {
    if (!isAllowed(from, to)) {
      throw new IllegalStateException(moveName + " not in the table: " + from + " -> " + to);
    }
  }
}
