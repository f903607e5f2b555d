package dev.ax.dispatcher;

import dev.ax.common.config.AxConfig;
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
    int httpMaxResponseExcerpt,
    String shellScriptDir,
    int shellMaxOutput,
    Duration shellKillGrace) {

  public static DispatcherConfig from(AxConfig config) {
    return new DispatcherConfig(
        config.get(DispatcherKeys.THREADS),
        config.get(DispatcherKeys.QUEUE),
        config.get(DispatcherKeys.GROUP_THREADS),
        config.get(DispatcherKeys.MAX_GROUPS),
        config.get(DispatcherKeys.HOLD_FOR),
        config.get(DispatcherKeys.LEASE),
        config.get(DispatcherKeys.OUTBOX_RELAY_AFTER),
        config.get(DispatcherKeys.HTTP_ALLOWED_HOSTS),
        config.get(DispatcherKeys.HTTP_MAX_RESPONSE_EXCERPT),
        config.get(DispatcherKeys.SHELL_SCRIPT_DIR),
        config.get(DispatcherKeys.SHELL_MAX_OUTPUT),
        config.get(DispatcherKeys.SHELL_KILL_GRACE));
  }
}
