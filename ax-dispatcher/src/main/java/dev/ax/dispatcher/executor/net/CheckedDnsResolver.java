package dev.ax.dispatcher.executor.net;

import java.net.InetAddress;
import java.net.UnknownHostException;
import org.apache.hc.client5.http.DnsResolver;

/**
 * The HTTP client's only way from a host name to addresses: each lookup goes through {@link
 * HttpTargetPolicy#checkedAddresses}, which resolves the name and checks every address it gets, so
 * the socket is opened to an address that was checked in that very lookup. A later DNS answer
 * (rebinding between the executor's early check and the connection) is checked again and, if
 * refused, throws {@link TargetRefusedException}: the client has nothing to connect to. Stateless
 * and thread-safe as far as the policy's resolver is.
 */
public final class CheckedDnsResolver implements DnsResolver {

  private final HttpTargetPolicy policy;

  public CheckedDnsResolver(HttpTargetPolicy policy) {
    this.policy = policy;
  }

  /**
   * @throws TargetRefusedException when the policy refuses the host or any address it resolves to
   * @throws UnknownHostException when the name does not resolve
   */
  @Override
  public InetAddress[] resolve(String host) throws UnknownHostException {
    return policy.checkedAddresses(host);
  }

  /** The name itself: no reverse lookup (only authentication schemes AX does not use ask). */
  @Override
  public String resolveCanonicalHostname(String host) {
    return host;
  }
}
