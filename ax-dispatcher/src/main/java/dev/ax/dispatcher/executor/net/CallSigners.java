package dev.ax.dispatcher.executor.net;

import dev.ax.common.config.ConfigException;
import dev.ax.common.model.Namespace;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which secret signs a call: the namespace's own ({@code AX_HTTP_SIGNING_SECRETS_FILE}, lines
 * {@code <namespace> <secret>}), else the shared {@code AX_HTTP_SIGNING_SECRET}, else none. A
 * namespace's receivers verify with its secret only, so one tenant's receiver cannot forge calls to
 * another's. Immutable; thread-safe.
 */
public final class CallSigners {

  /** Largest secrets file read. */
  private static final long MAX_FILE_BYTES = 1024 * 1024;

  private final Optional<CallSigner> shared;
  private final Map<Namespace, CallSigner> byNamespace;

  private CallSigners(Optional<CallSigner> shared, Map<Namespace, CallSigner> byNamespace) {
    this.shared = shared;
    this.byNamespace = Map.copyOf(byNamespace);
  }

  /** Every call signed with {@code shared}, or none when empty. */
  public static CallSigners shared(Optional<CallSigner> shared) {
    return new CallSigners(shared, Map.of());
  }

  /**
   * The shared secret (empty: none) and the secrets file (empty: none).
   *
   * @throws ConfigException for a file that cannot be read or a bad line (named by its number,
   *     never with its secret)
   */
  public static CallSigners of(String sharedSecret, String secretsFile) {
    Optional<CallSigner> shared =
        sharedSecret.isEmpty() ? Optional.empty() : Optional.of(new CallSigner(sharedSecret));
    if (secretsFile.isBlank()) {
      return new CallSigners(shared, Map.of());
    }
    Path file = Path.of(secretsFile);
    List<String> lines;
    try {
      if (Files.size(file) > MAX_FILE_BYTES) {
        throw new ConfigException("AX_HTTP_SIGNING_SECRETS_FILE " + file + " is too large");
      }
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ConfigException("AX_HTTP_SIGNING_SECRETS_FILE " + file + " cannot be read: " + e);
    }
    Map<Namespace, CallSigner> byNamespace = new HashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String where = "AX_HTTP_SIGNING_SECRETS_FILE line " + (i + 1);
      String[] fields = line.split("\\s+");
      Optional<Namespace> namespace =
          fields.length == 2 ? Namespace.parse(fields[0]) : Optional.empty();
      if (namespace.isEmpty()) {
        throw new ConfigException(where + ": expected `<namespace> <secret>`");
      }
      CallSigner signer;
      try {
        signer = new CallSigner(fields[1]);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(where + ": " + e.getMessage());
      }
      if (byNamespace.put(namespace.get(), signer) != null) {
        throw new ConfigException(where + ": namespace " + namespace.get() + " is listed twice");
      }
    }
    return new CallSigners(shared, byNamespace);
  }

  /** The signer of a call of instance {@code instanceId} (a stored, qualified id). */
  public Optional<CallSigner> forInstance(String instanceId) {
    int at = instanceId.indexOf(Namespace.SEPARATOR);
    Namespace namespace =
        at <= 0
            ? Namespace.DEFAULT
            : Namespace.parse(instanceId.substring(0, at)).orElse(Namespace.DEFAULT);
    CallSigner own = byNamespace.get(namespace);
    return own != null ? Optional.of(own) : shared;
  }

  @Override
  public String toString() {
    return "CallSigners[shared "
        + (shared.isPresent() ? "****" : "none")
        + ", namespaces "
        + byNamespace.keySet()
        + "]";
  }
}
