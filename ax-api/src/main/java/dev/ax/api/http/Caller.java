package dev.ax.api.http;

/**
 * Who makes a request: a token's name and role, or the local user on a loopback bind without
 * tokens. The name is what the audit records as the operator. Immutable.
 *
 * @param name the operator's name (a token's name, or {@link #LOCAL}'s)
 * @param mayOperate whether the caller may change anything (role {@code operate})
 */
public record Caller(String name, boolean mayOperate) {

  /** Any caller of a loopback bind without tokens: whoever can reach the machine's loopback. */
  public static final Caller LOCAL = new Caller("console@localhost", true);
}
