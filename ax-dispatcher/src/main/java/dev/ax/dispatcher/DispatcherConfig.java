package dev.ax.dispatcher;

import dev.ax.common.config.AxConfig;
import dev.ax.common.config.ConfigException;
import dev.ax.common.config.ConfigRecords;
import dev.ax.dispatcher.executor.net.CallSigner;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The dispatcher stage's configuration ({@link DispatcherKeys}), read once by {@link
 * DispatcherMain} (or the CLI) and handed to {@link DispatcherStage}. Immutable.
 *
 * @param threads worker threads per task group unless {@code groupThreads} names it
 * @param queue claimed instances waiting for a worker
 * @param groupThreads worker threads of particular groups ({@code __retry}, {@code __overflow})
 * @param maxGroups groups with a pool of their own, beyond which they share the overflow pool
 * @param holdFor how long one group's full pool may hold up fetching
 * @param lease how long a claim holds a run without renewal
 * @param outboxRelayAfter unconfirmed outcome events older than this are sent again
 * @param httpAllowedHosts hosts the HTTP executor may call
 * @param httpAllowedPorts ports it may connect to on a named host
 * @param httpAllowedRanges denied address ranges a host name may resolve into all the same
 * @param httpRequireTls https only
 * @param httpSigningSecret the secret HTTP calls are signed under; empty: unsigned
 * @param httpMaxResponseExcerpt characters of a failed response kept in the error
 * @param shellScriptDir where SHELL scripts may live; empty: SHELL is off
 * @param shellMaxOutput bytes kept of each of a script's stdout and stderr
 * @param shellKillGrace time between SIGTERM and SIGKILL
 */
public record DispatcherConfig(
    int threads,
    int queue,
    Map<String, Integer> groupThreads,
    int maxGroups,
    Duration holdFor,
    Duration lease,
    Duration outboxRelayAfter,
    List<String> httpAllowedHosts,
    List<String> httpAllowedPorts,
    List<String> httpAllowedRanges,
    boolean httpRequireTls,
    String httpSigningSecret,
    String httpSigningSecretsFile,
    int httpMaxResponseExcerpt,
    String shellScriptDir,
    int shellMaxOutput,
    Duration shellKillGrace) {

  public DispatcherConfig {
    if (!httpSigningSecret.isEmpty()
        && httpSigningSecret.getBytes(StandardCharsets.UTF_8).length
            < CallSigner.MIN_SECRET_BYTES) {
      throw new ConfigException(
          "AX_HTTP_SIGNING_SECRET must be at least "
              + CallSigner.MIN_SECRET_BYTES
              + " bytes (e.g. `openssl rand -hex 32`)");
    }
  }

  /**
   * Each component is the value of the {@link DispatcherKeys} key of its name ({@link
   * ConfigRecords}).
   */
  public static DispatcherConfig from(AxConfig config) {
    return ConfigRecords.read(config, DispatcherConfig.class, DispatcherKeys.class);
  }

  /** As a record prints itself, with the signing secret masked. */
  @Override
  public String toString() {
    return "DispatcherConfig[threads="
        + threads
        + ", queue="
        + queue
        + ", groupThreads="
        + groupThreads
        + ", maxGroups="
        + maxGroups
        + ", holdFor="
        + holdFor
        + ", lease="
        + lease
        + ", outboxRelayAfter="
        + outboxRelayAfter
        + ", httpAllowedHosts="
        + httpAllowedHosts
        + ", httpAllowedPorts="
        + httpAllowedPorts
        + ", httpAllowedRanges="
        + httpAllowedRanges
        + ", httpRequireTls="
        + httpRequireTls
        + ", httpSigningSecret="
        + (httpSigningSecret.isEmpty() ? "" : "****")
        + ", httpSigningSecretsFile="
        + httpSigningSecretsFile
        + ", httpMaxResponseExcerpt="
        + httpMaxResponseExcerpt
        + ", shellScriptDir="
        + shellScriptDir
        + ", shellMaxOutput="
        + shellMaxOutput
        + ", shellKillGrace="
        + shellKillGrace
        + "]";
  }
}
