package dev.ax.dispatcher.executor.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ax.dispatcher.executor.HostAllowList;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The HTTP executor's network rules over a fake resolver: names that resolve into denied ranges
 * (loopback, the cloud metadata address, private, IPv6 loopback and IPv4-mapped loopback) are
 * refused, as are denied ports and plain http when TLS is required; an allowed range and an IP
 * address the operator wrote on the allow-list pass.
 */
class HttpTargetPolicyTest {

  private static final Map<String, String> DNS =
      Map.of(
          "api.corp.example", "203.0.113.10",
          "sneaky.corp.example", "127.0.0.1",
          "metadata.corp.example", "169.254.169.254",
          "internal.corp.example", "10.1.2.3",
          "v6loop.corp.example", "::1",
          "mapped.corp.example", "::ffff:127.0.0.1",
          "docker.corp.example", "172.17.0.1");

  private static InetAddress[] resolve(String host) throws UnknownHostException {
    String address = DNS.get(host);
    if (address == null) {
      throw new UnknownHostException(host);
    }
    return new InetAddress[] {InetAddress.getByName(address)};
  }

  private static HttpTargetPolicy policy(List<String> ranges, String ports, boolean tls) {
    return new HttpTargetPolicy(
        new HostAllowList(List.of("*.corp.example", "127.0.0.1")),
        ranges.stream().map(AddressRange::parse).toList(),
        PortList.parse(List.of(ports.split(","))),
        tls,
        HttpTargetPolicyTest::resolve);
  }

  private static final HttpTargetPolicy DEFAULTS = policy(List.of(), "80,443,8080,8443", false);

  @Test
  void aPublicAddressOnAnAllowedPortPasses() {
    assertThat(DEFAULTS.refusal(URI.create("https://api.corp.example/jobs"))).isEmpty();
    assertThat(DEFAULTS.refusal(URI.create("http://api.corp.example:8080/jobs"))).isEmpty();
  }

  @Test
  void namesThatResolveIntoDeniedRangesAreRefusedBeforeAnyCall() {
    assertThat(DEFAULTS.refusal(URI.create("https://sneaky.corp.example/")))
        .hasValueSatisfying(r -> assertThat(r).contains("127.0.0.1", "127.0.0.0/8"));
    assertThat(DEFAULTS.refusal(URI.create("http://metadata.corp.example/latest/meta-data")))
        .hasValueSatisfying(r -> assertThat(r).contains("169.254.169.254", "169.254.0.0/16"));
    assertThat(DEFAULTS.refusal(URI.create("https://internal.corp.example/")))
        .hasValueSatisfying(r -> assertThat(r).contains("10.0.0.0/8"));
    assertThat(DEFAULTS.refusal(URI.create("https://v6loop.corp.example/")))
        .hasValueSatisfying(r -> assertThat(r).contains("::1/128"));
    assertThat(DEFAULTS.refusal(URI.create("https://mapped.corp.example/")))
        .as("an IPv4-mapped IPv6 address is its IPv4 address")
        .hasValueSatisfying(r -> assertThat(r).contains("127.0.0.0/8"));
    assertThat(DEFAULTS.refusal(URI.create("https://nowhere.corp.example/")))
        .hasValueSatisfying(r -> assertThat(r).contains("does not resolve"));
  }

  @Test
  void aDeniedPortIsRefused() {
    assertThat(DEFAULTS.refusal(URI.create("http://api.corp.example:2375/containers/json")))
        .hasValueSatisfying(r -> assertThat(r).contains("port 2375", "AX_HTTP_ALLOWED_PORTS"));
  }

  @Test
  void anAllowedRangeLetsANameResolveIntoIt() {
    HttpTargetPolicy policy = policy(List.of("172.16.0.0/12"), "80,443,2375", false);
    assertThat(policy.refusal(URI.create("http://docker.corp.example:2375/"))).isEmpty();
    assertThat(policy.refusal(URI.create("https://sneaky.corp.example/"))).isPresent();
  }

  @Test
  void anAddressWrittenOnTheAllowListIsAnExplicitTarget() {
    assertThat(DEFAULTS.refusal(URI.create("http://127.0.0.1:41234/ok"))).isEmpty();
    assertThat(DEFAULTS.refusal(URI.create("http://127.0.0.2/ok")))
        .hasValueSatisfying(r -> assertThat(r).contains("not on the HTTP allow-list"));
  }

  @Test
  void plainHttpIsRefusedWhenTlsIsRequiredAndOtherSchemesAlways() {
    HttpTargetPolicy tls = policy(List.of(), "443", true);
    assertThat(tls.refusal(URI.create("http://api.corp.example/")))
        .hasValueSatisfying(r -> assertThat(r).contains("AX_HTTP_REQUIRE_TLS"));
    assertThat(tls.refusal(URI.create("https://api.corp.example/"))).isEmpty();
    assertThat(DEFAULTS.refusal(URI.create("ftp://api.corp.example/"))).isPresent();
    assertThat(DEFAULTS.refusal(URI.create("file:///etc/passwd"))).isPresent();
  }

  @Test
  void checkedAddressesAreTheResolvedOnesOrARefusalWithItsReason() throws Exception {
    assertThat(DEFAULTS.checkedAddresses("api.corp.example")).containsExactly(addr("203.0.113.10"));
    assertThatThrownBy(() -> DEFAULTS.checkedAddresses("metadata.corp.example"))
        .isInstanceOf(TargetRefusedException.class)
        .hasMessageContaining("resolves to 169.254.169.254")
        .hasMessageContaining("169.254.0.0/16");
    assertThatThrownBy(() -> DEFAULTS.checkedAddresses("elsewhere.example"))
        .isInstanceOf(TargetRefusedException.class)
        .hasMessageContaining("not on the HTTP allow-list");
    assertThatThrownBy(() -> DEFAULTS.checkedAddresses("nowhere.corp.example"))
        .isInstanceOf(UnknownHostException.class)
        .isNotInstanceOf(TargetRefusedException.class);
    assertThat(DEFAULTS.checkedAddresses("127.0.0.1"))
        .as("an address written on the allow-list, without a lookup")
        .containsExactly(addr("127.0.0.1"));
  }

  @Test
  void rangesAndPortsAreParsedStrictly() {
    assertThat(AddressRange.parse("fe80::/10").contains(addr("fe80::1"))).isTrue();
    assertThat(AddressRange.parse("10.0.0.0/8").contains(addr("11.0.0.1"))).isFalse();
    assertThat(AddressRange.parse("192.0.2.7").contains(addr("192.0.2.7"))).isTrue();
    assertThatThrownBy(() -> AddressRange.parse("corp.example/8"))
        .hasMessageContaining("not an IP address range");
    assertThatThrownBy(() -> AddressRange.parse("10.0.0.0/33")).hasMessageContaining("prefix");
    assertThatThrownBy(() -> PortList.parse(List.of("0"))).hasMessageContaining("not a port");
    assertThatThrownBy(() -> PortList.parse(List.of("90-80"))).hasMessageContaining("backwards");
    assertThat(PortList.parse(List.of("*")).allows(65_535)).isTrue();
  }

  private static InetAddress addr(String literal) {
    try {
      return InetAddress.getByName(literal);
    } catch (UnknownHostException e) {
      throw new AssertionError(e);
    }
  }
}
