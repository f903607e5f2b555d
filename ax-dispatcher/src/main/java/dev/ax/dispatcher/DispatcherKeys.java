package dev.ax.dispatcher;

import dev.ax.common.config.ConfigKey;
import dev.ax.common.config.ConfigKeySet;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The dispatcher stage's keys: its worker pools and queue, its hold budget, its claim lease, its
 * outbox relay, and the HTTP and SHELL executors. {@link DispatcherConfig} holds their values. Each
 * key is declared once, here; see {@link ConfigKeySet}.
 */
public final class DispatcherKeys implements ConfigKeySet {

  public static final ConfigKey<Integer> THREADS =
      ConfigKey.integer(
          "AX_DISPATCHER_THREADS",
          64,
          1,
          4096,
          "Worker threads per task group (a bulkhead each) unless AX_DISPATCHER_GROUP_THREADS names the group.");

  public static final ConfigKey<Integer> QUEUE =
      ConfigKey.integer(
          "AX_DISPATCHER_QUEUE",
          1000,
          1,
          1_000_000,
          "Claimed instances waiting for a worker; when full the dispatcher stops fetching.");

  public static final ConfigKey<Map<String, Integer>> GROUP_THREADS =
      ConfigKey.sizesByName(
          "AX_DISPATCHER_GROUP_THREADS",
          "",
          1,
          4096,
          "Worker threads of particular task groups, e.g. `reports=4,billing=32`; `__retry` sizes the pool of retried attempts, `__overflow` the pool shared by groups beyond AX_DISPATCHER_MAX_GROUPS.");

  public static final ConfigKey<Integer> MAX_GROUPS =
      ConfigKey.integer(
          "AX_DISPATCHER_MAX_GROUPS",
          64,
          1,
          10_000,
          "Task groups that get a worker pool (bulkhead) of their own in one dispatcher, the first ones seen (groups named in AX_DISPATCHER_GROUP_THREADS always have their own, outside this cap); later groups share one overflow pool (`__overflow`, sized like a group), so the number of pools and threads stays bounded whatever groups producers invent. Idle pool threads end after 60 s.");

  public static final ConfigKey<Duration> HOLD_FOR =
      ConfigKey.duration(
          "AX_DISPATCHER_HOLD_FOR",
          "1s",
          Duration.ofMillis(100),
          Duration.ofMinutes(10),
          "How long one task group's full pool may hold up fetching for every group. Once a group's pool has had no room for this long, and fetching would pause, the group keeps only the due events its pool started in the last AX_DISPATCHER_HOLD_FOR (the oldest, at least one); the rest stay DISPATCHED and the reaper emits them again after AX_REAPER_UNCLAIMED_AFTER.");

  public static final ConfigKey<Duration> LEASE =
      ConfigKey.duration(
          "AX_DISPATCHER_LEASE",
          "60s",
          Duration.ofSeconds(5),
          Duration.ofHours(25),
          "How long a claim holds a run without renewal; the dispatcher renews the leases of its running attempts every third of it, and the reaper takes back a run whose lease expired (its dispatcher died).");

  public static final ConfigKey<Duration> OUTBOX_RELAY_AFTER =
      ConfigKey.duration(
          "AX_OUTBOX_RELAY_AFTER",
          "10s",
          Duration.ofSeconds(1),
          Duration.ofHours(1),
          "An outcome's events (completion, flow success, retry, dead letter) not confirmed by the broker this long after their outcome was recorded are sent again by any dispatcher's outbox relay: the one that recorded them may have died. Consumers may see such an event twice, never zero times.");

  public static final ConfigKey<List<String>> HTTP_ALLOWED_HOSTS =
      ConfigKey.list(
          "AX_HTTP_ALLOWED_HOSTS",
          "",
          "Hosts the HTTP executor may call, comma-separated (exact names; `*.example.com` for subdomains). Empty: no HTTP task may run.");

  public static final ConfigKey<List<String>> HTTP_ALLOWED_PORTS =
      ConfigKey.list(
          "AX_HTTP_ALLOWED_PORTS",
          "80,443,8080,8443",
          "Ports the HTTP executor may connect to on a host named on AX_HTTP_ALLOWED_HOSTS, comma-separated, ranges as `8000-8999`, `*` for any. An IP address written on AX_HTTP_ALLOWED_HOSTS is an explicit target: its ports are not checked.");

  public static final ConfigKey<List<String>> HTTP_ALLOWED_RANGES =
      ConfigKey.list(
          "AX_HTTP_ALLOWED_RANGES",
          "",
          "Address ranges (CIDR, e.g. `10.20.0.0/16`) an allowed host name may resolve into although they are denied by default: loopback, private, link-local (with the cloud metadata address 169.254.169.254), carrier-grade NAT, multicast and reserved ranges (docs/SECURITY.md lists them). Every address a name resolves to is checked before the call.");

  public static final ConfigKey<Boolean> HTTP_REQUIRE_TLS =
      ConfigKey.bool(
          "AX_HTTP_REQUIRE_TLS",
          false,
          "true: HTTP tasks may call https URLs only; an http URL fails without a call.");

  public static final ConfigKey<String> HTTP_SIGNING_SECRET =
      ConfigKey.secret(
          "AX_HTTP_SIGNING_SECRET",
          "",
          "Shared secret (at least 32 bytes; or AX_HTTP_SIGNING_SECRET_FILE) under which every HTTP task call is signed: X-AX-Timestamp (epoch seconds) and X-AX-Signature (v1=hex HMAC-SHA256 of `<timestamp>.<Idempotency-Key>.<body>`), so a receiver can refuse forged or replayed calls (docs/SECURITY.md). Empty: calls are not signed. Never logged.");

  public static final ConfigKey<String> HTTP_SIGNING_SECRETS_FILE =
      ConfigKey.string(
          "AX_HTTP_SIGNING_SECRETS_FILE",
          "",
          "A file of per-namespace signing secrets, one `<namespace> <secret>` per line (each at least 32 bytes; `#` a comment): a namespace's HTTP calls are signed with its own secret, so its receivers cannot forge calls to another namespace's. A namespace not listed is signed with AX_HTTP_SIGNING_SECRET. Empty: none. The secrets are never logged.");

  public static final ConfigKey<Integer> HTTP_MAX_RESPONSE_EXCERPT =
      ConfigKey.integer(
          "AX_HTTP_MAX_RESPONSE_EXCERPT",
          512,
          0,
          65536,
          "Characters of a failed HTTP response body kept in the error.");

  public static final ConfigKey<String> SHELL_SCRIPT_DIR =
      ConfigKey.string(
          "AX_SHELL_SCRIPT_DIR",
          "",
          "Directory SHELL tasks may run scripts from (plain file names; symlinks must stay inside). Empty: SHELL tasks are disabled. Must be writable only by whoever deploys scripts.");

  public static final ConfigKey<Integer> SHELL_MAX_OUTPUT =
      ConfigKey.integer(
          "AX_SHELL_MAX_OUTPUT",
          65536,
          0,
          16 * 1024 * 1024,
          "Bytes kept of each of a script's stdout and stderr; the rest is read and dropped. The end of stderr goes into a failure's error.");

  public static final ConfigKey<Duration> SHELL_KILL_GRACE =
      ConfigKey.duration(
          "AX_SHELL_KILL_GRACE",
          "5s",
          Duration.ZERO,
          Duration.ofMinutes(1),
          "When a script's time is up: time between SIGTERM and SIGKILL to its process tree.");

  /** For the {@link java.util.ServiceLoader} only. */
  public DispatcherKeys() {}
}
