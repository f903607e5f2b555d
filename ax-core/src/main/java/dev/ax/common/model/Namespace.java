package dev.ax.common.model;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A tenant of AX: every task belongs to one namespace, learned at ingest from the topic its command
 * arrived on ({@code ax.<namespace>.task.commands}; {@link #DEFAULT} keeps today's {@code
 * ax.task.commands}), never from the message.
 *
 * <p>Inside AX a task of namespace {@code n} is stored under its <em>qualified</em> id {@code
 * n~<taskId>} (and so are its group, its upstream ids and its flow runs); a task of the default
 * namespace keeps its plain id, so stored data and events of existing deployments do not change. A
 * user's task id, group and upstream ids can never hold a {@code ~} (their patterns forbid it;
 * {@code ~} needs no escaping in a URL path, a header or an environment variable), so a qualified
 * id is never ambiguous and no name a producer writes can reach another namespace. Instance ids
 * derive from qualified task ids, so they stay deterministic and unique across namespaces.
 * Immutable.
 */
public record Namespace(String name) {

  /** Names: lower-case letters, digits and {@code -}, starting with a letter, 1..31 long. */
  public static final Pattern NAME = Pattern.compile("[a-z][a-z0-9-]{0,30}");

  public static final String DEFAULT_NAME = "default";

  public static final Namespace DEFAULT = new Namespace(DEFAULT_NAME);

  /** Separates a namespace from a name in a qualified id: {@code billing~invoice-42}. */
  public static final char SEPARATOR = '~';

  public Namespace {
    Objects.requireNonNull(name, "name");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "a namespace name must match " + NAME.pattern() + ": '" + name + "'");
    }
  }

  /** The namespace named {@code name}, or empty when the name is not a legal one. */
  public static java.util.Optional<Namespace> parse(String name) {
    return name != null && NAME.matcher(name).matches()
        ? java.util.Optional.of(new Namespace(name))
        : java.util.Optional.empty();
  }

  public boolean isDefault() {
    return DEFAULT_NAME.equals(name);
  }

  /** The stored form of a user's id (task, group, upstream, flow run) in this namespace. */
  public String qualify(String localId) {
    return isDefault() ? localId : name + SEPARATOR + localId;
  }

  /** How many characters qualifying adds to an id. */
  public int qualifierLength() {
    return isDefault() ? 0 : name.length() + 1;
  }

  /** The namespace a stored (qualified) id belongs to. */
  public static Namespace of(String qualifiedId) {
    int at = qualifiedId.indexOf(SEPARATOR);
    return at < 0 ? DEFAULT : new Namespace(qualifiedId.substring(0, at));
  }

  /** The id as its namespace's users wrote it: the stored id without its namespace. */
  public static String localId(String qualifiedId) {
    int at = qualifiedId.indexOf(SEPARATOR);
    return at < 0 ? qualifiedId : qualifiedId.substring(at + 1);
  }

  /** True when {@code qualifiedId} is stored in this namespace. */
  public boolean owns(String qualifiedId) {
    return of(qualifiedId).equals(this);
  }

  @Override
  public String toString() {
    return name;
  }
}
