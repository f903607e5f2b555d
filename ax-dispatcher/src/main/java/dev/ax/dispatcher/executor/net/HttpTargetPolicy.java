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
 *
 * <p>The address rules are {@link #checkedAddresses}, used twice: by {@link #refusal} before a call
 * (a refused target fails for good without a connection attempt), and by the HTTP client's {@link
 * CheckedDnsResolver} when it connects, so that the socket is opened only to an address checked in
 * the lookup that produced it: a DNS answer that changes in between (rebinding) is checked again
 * rather than trusted. Thread-safe and immutable; the resolver is called on the caller's thread
 * (the client's, at connect time).
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
    String bare = bare(host);
    if (explicit(bare)) {
      return Optional.empty(); // an address the operator wrote down: an explicit target
    }
    int port = url.getPort() > 0 ? url.getPort() : scheme.equals("https") ? 443 : 80;
    if (!ports.allows(port)) {
      return Optional.of("port " + port + " is not on AX_HTTP_ALLOWED_PORTS (" + ports + ")");
    }
    try {
      checkedAddresses(bare);
      return Optional.empty();
    } catch (TargetRefusedException e) {
      return Optional.of(e.reason());
    } catch (UnknownHostException e) {
      return Optional.of(unresolved(host));
    }
  }

  /** The refusal of a host name that does not resolve (a pool tries its next endpoint then). */
  public static String unresolved(String host) {
    return "host " + host + " does not resolve";
  }

  /**
   * The addresses {@code host} may be connected to: an IP address written on the allow-list as
   * itself, otherwise every address the resolver gives for an allowed name, each outside the denied
   * ranges (or in an allowed one). All or nothing: one denied address refuses the name.
   *
   * @param host a host name or IP address, IPv6 with or without brackets
   * @throws TargetRefusedException with the reason, when the host or one of its addresses is
   *     refused
   * @throws UnknownHostException when the name does not resolve (to anything)
   */
  public InetAddress[] checkedAddresses(String host) throws UnknownHostException {
    String bare = bare(host);
    if (explicit(bare)) {
      return new InetAddress[] {InetAddress.getByName(bare)}; // a literal: no lookup
    }
    if (!hosts.allows(bare)) {
      throw new TargetRefusedException(
          "host " + host + " is not on the HTTP allow-list (AX_HTTP_ALLOWED_HOSTS)");
    }
    InetAddress[] addresses = resolver.resolve(bare);
    if (addresses == null || addresses.length == 0) {
      throw new UnknownHostException(bare);
    }
    for (InetAddress address : addresses) {
      Optional<String> denied = deniedRange(address);
      if (denied.isPresent()) {
        throw new TargetRefusedException(
            "host "
                + bare
                + " resolves to "
                + address.getHostAddress()
                + ", in the denied range "
                + denied.get()
                + " (allow it with AX_HTTP_ALLOWED_RANGES)");
      }
    }
    return addresses.clone();
  }

  private static String bare(String host) {
    return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
  }

  /** An IP address written on the allow-list exactly: the operator named it. */
  private boolean explicit(String bare) {
    return AddressRange.isLiteral(bare) && hosts.names(bare);
  }

  private Optional<String> deniedRange(InetAddress address) {
    if (allowedRanges.stream().anyMatch(r -> r.contains(address))) {
      return Optional.empty();
    }
    return DENIED_RANGES.stream().filter(r -> r.contains(address)).map(String::valueOf).findFirst();
  }
}
