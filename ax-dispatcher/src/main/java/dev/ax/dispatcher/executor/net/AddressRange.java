package dev.ax.dispatcher.executor.net;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/**
 * A block of IP addresses in CIDR notation ({@code 10.0.0.0/8}, {@code fe80::/10}). An IPv6 address
 * that carries an IPv4 one ({@code ::ffff:127.0.0.1}, IPv4-mapped) is matched as that IPv4 address,
 * so it cannot slip past an IPv4 range. Immutable.
 */
public final class AddressRange {

  private final byte[] network;
  private final int prefixBits;
  private final String text;

  private AddressRange(byte[] network, int prefixBits, String text) {
    this.network = network;
    this.prefixBits = prefixBits;
    this.text = text;
  }

  /**
   * Parses {@code address/bits} (or a single address, as /32 or /128). Only literal addresses:
   * nothing is looked up.
   *
   * @throws IllegalArgumentException for anything else, naming it
   */
  public static AddressRange parse(String cidr) {
    String text = cidr.strip();
    int slash = text.indexOf('/');
    String address = slash < 0 ? text : text.substring(0, slash);
    if (!isLiteral(address)) {
      throw new IllegalArgumentException("not an IP address range (address/bits): " + cidr);
    }
    byte[] bytes;
    try {
      bytes = canonical(InetAddress.getByName(address)).getAddress();
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("not an IP address range (address/bits): " + cidr);
    }
    int bits = bytes.length * 8;
    if (slash >= 0) {
      try {
        bits = Integer.parseInt(text.substring(slash + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("bad prefix length in " + cidr);
      }
      if (bits < 0 || bits > bytes.length * 8) {
        throw new IllegalArgumentException("prefix length out of range in " + cidr);
      }
    }
    return new AddressRange(masked(bytes, bits), bits, text);
  }

  /** True when {@code address} lies in the range (an IPv4-mapped IPv6 address as its IPv4). */
  public boolean contains(InetAddress address) {
    byte[] bytes = canonical(address).getAddress();
    return bytes.length == network.length && Arrays.equals(masked(bytes, prefixBits), network);
  }

  /**
   * True when {@code host} is written as an IP address (digits and dots, or an IPv6 form), so that
   * reading it involves no lookup.
   */
  public static boolean isLiteral(String host) {
    if (host.isEmpty()) {
      return false;
    }
    if (host.indexOf(':') >= 0) {
      return host.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == ':' || c == '.');
    }
    return host.chars().allMatch(c -> (c >= '0' && c <= '9') || c == '.');
  }

  /** {@code address}, or the IPv4 address an IPv4-mapped IPv6 address carries. */
  static InetAddress canonical(InetAddress address) {
    if (address instanceof Inet6Address) {
      byte[] b = address.getAddress();
      boolean mapped = true;
      for (int i = 0; i < 10; i++) {
        mapped &= b[i] == 0;
      }
      mapped &= b[10] == (byte) 0xff && b[11] == (byte) 0xff;
      if (mapped) {
        try {
          return Inet4Address.getByAddress(Arrays.copyOfRange(b, 12, 16));
        } catch (UnknownHostException e) {
          throw new IllegalStateException("four bytes are an IPv4 address", e);
        }
      }
    }
    return address;
  }

  private static byte[] masked(byte[] bytes, int bits) {
    byte[] out = bytes.clone();
    for (int i = 0; i < out.length; i++) {
      int keep = Math.max(0, Math.min(8, bits - i * 8));
      out[i] = (byte) (out[i] & (0xff << (8 - keep)));
    }
    return out;
  }

  @Override
  public String toString() {
    return text;
  }
}
