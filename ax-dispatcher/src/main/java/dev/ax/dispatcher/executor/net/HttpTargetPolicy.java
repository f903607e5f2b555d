package dev.ax.dispatcher.executor.net;

import dev.ax.dispatcher.executor.HostAllowList;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Where the HTTP executor may connect, checked before every call: the scheme (https only, when
 * required), the host on the allow-list, the port on the port list, and every address the host name
 * resolves to outside the denied ranges (loopback, private, link-local with the cloud metadata
 * address, multicast, reserved) unless a range is explicitly allowed. A name is what DNS can point
 * anywhere, so a name on the allow-list must pass every rule; an IP address written on the
 * allow-list is an explicit target the operator named, so the ranges and ports do not apply to it.
 * The check resolves the name through the JVM's address cache, which the connection's own lookup
 * moments later then answers from (see docs/SECURITY.md for the window that leaves). Thread-safe
 * and immutable; the resolver is called on the caller's thread.
 */
public final class HttpTargetPolicy {

  /** Resolves a host name to its addresses, as {@link InetAddress#getAllByName} does. */
  @FunctionalInterface
  public interface Resolver {
    InetAddress[] resolve(String host) throws UnknownHostException;
  }

  /**
   * The ranges no call may reach unless allowed: loopback, private, link-local, reserved,
   * multicast.
   */
  public static final List<String> DENIED =
      List.of(
          "0.0.0.0/8",
          "10.0.0.0/8",
          "100.64.0.0/10",
          "127.0.0.0/8",
          "169.254.0.0/16",
          "172.16.0.0/12",
          "192.0.0.0/24",
          "192.168.0.0/16",
          "198.18.0.0/15",
          "224.0.0.0/4",
          "240.0.0.0/4",
          "::/128",
          "::1/128",
          "64:ff9b::/96",
          "fc00::/7",
          "fe80::/10",
          "ff00::/8");

  private static final List<AddressRange> DENIED_RANGES =
      DENIED.stream().map(AddressRange::parse).toList();

  private final HostAllowList hosts;
  private final List<AddressRange> allowedRanges;
  private final PortList ports;
  private final boolean requireTls;
  private final Resolver resolver;

  public HttpTargetPolicy(
      HostAllowList hosts,
      List<AddressRange> allowedRanges,
      PortList ports,
      boolean requireTls,
      Resolver resolver) {
    this.hosts = hosts;
    this.allowedRanges = List.copyOf(allowedRanges);
    this.ports = ports;
    this.requireTls = requireTls;
    this.resolver = resolver;
  }

  /** Why {@code url} may not be called, or empty when it may. Never throws for a bad URL. */
  public Optional<String> refusal(URI url) {
    String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("https") && !(scheme.equals("http") && !requireTls)) {
      return Optional.of(
          requireTls
              ? "only https may be called (AX_HTTP_REQUIRE_TLS): " + scheme
              : "only http and https may be called: " + scheme);
    }
    String host = url.getHost();
    if (host == null || !hosts.allows(host)) {
      return Optional.of("host " + host + " is not on the HTTP allow-list (AX_HTTP_ALLOWED_HOSTS)");
    }
    String bare = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
    if (AddressRange.isLiteral(bare) && hosts.names(bare)) {
      return Optional.empty(); // an address the operator wrote down: an explicit target
    }
    int port = url.getPort() > 0 ? url.getPort() : scheme.equals("https") ? 443 : 80;
    if (!ports.allows(port)) {
      return Optional.of("port " + port + " is not on AX_HTTP_ALLOWED_PORTS (" + ports + ")");
    }
    InetAddress[] addresses;
    try {
      addresses = resolver.resolve(bare);
    } catch (UnknownHostException e) {
      return Optional.of("host " + host + " does not resolve");
    }
    for (InetAddress address : addresses) {
      Optional<String> denied = deniedRange(address);
      if (denied.isPresent()) {
        return Optional.of(
            "host "
                + host
                + " resolves to "
                + address.getHostAddress()
                + ", in the denied range "
                + denied.get()
                + " (allow it with AX_HTTP_ALLOWED_RANGES)");
      }
    }
    return Optional.empty();
  }

  private Optional<String> deniedRange(InetAddress address) {
    if (allowedRanges.stream().anyMatch(r -> r.contains(address))) {
      return Optional.empty();
    }
    return DENIED_RANGES.stream().filter(r -> r.contains(address)).map(String::valueOf).findFirst();
  }
}
