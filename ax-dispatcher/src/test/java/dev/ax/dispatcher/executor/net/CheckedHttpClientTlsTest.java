package dev.ax.dispatcher.executor.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.ax.dispatcher.executor.HostAllowList;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS over the checked address: the socket goes to the address the resolver checked (loopback
 * here), and the certificate is still verified against the URL's host name. A real HTTPS server on
 * loopback with a self-signed certificate made by the JDK's keytool, trusted by the client's
 * context, so that only the host name decides.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class CheckedHttpClientTlsTest {

  private static final String PASSWORD = "changeit";

  @TempDir Path dir;

  /** A key store with a self-signed certificate for {@code dnsName}. */
  private KeyStore certificateFor(String dnsName) throws Exception {
    Path store = dir.resolve(dnsName + ".p12");
    Process keytool =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair",
                "-alias",
                "server",
                "-keyalg",
                "EC",
                "-dname",
                "CN=" + dnsName,
                "-ext",
                "SAN=dns:" + dnsName,
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                store.toString(),
                "-storepass",
                PASSWORD)
            .redirectErrorStream(true)
            .start();
    String output = new String(keytool.getInputStream().readAllBytes());
    assertThat(keytool.waitFor()).as(output).isZero();
    KeyStore keys = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(store)) {
      keys.load(in, PASSWORD.toCharArray());
    }
    return keys;
  }

  /** Calls {@code https://hooks.corp.example:port/} on a server presenting {@code keys}. */
  private int call(KeyStore keys, AtomicInteger hits) throws Exception {
    KeyManagerFactory km = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    km.init(keys, PASSWORD.toCharArray());
    SSLContext serverTls = SSLContext.getInstance("TLS");
    serverTls.init(km.getKeyManagers(), null, null);
    HttpsServer server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(serverTls));
    server.createContext(
        "/",
        exchange -> {
          hits.incrementAndGet();
          exchange.sendResponseHeaders(204, -1);
          exchange.close();
        });
    server.start();
    TrustManagerFactory tm =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tm.init(keys);
    SSLContext clientTls = SSLContext.getInstance("TLS");
    clientTls.init(null, tm.getTrustManagers(), null);
    HttpTargetPolicy policy =
        new HttpTargetPolicy(
            new HostAllowList(List.of("hooks.corp.example")),
            List.of(AddressRange.parse("127.0.0.1/32")),
            PortList.parse(List.of("*")),
            true,
            host -> new InetAddress[] {InetAddress.getByName("127.0.0.1")});
    URI url = URI.create("https://hooks.corp.example:" + server.getAddress().getPort() + "/");
    try (CheckedHttpClient client = new CheckedHttpClient(policy, clientTls)) {
      return client.send(new HttpUriRequestBase("POST", url), Duration.ofSeconds(30), 0).status();
    } finally {
      server.stop(0);
    }
  }

  @Test
  void aCertificateForTheNameIsAcceptedAtTheCheckedAddress() throws Exception {
    AtomicInteger hits = new AtomicInteger();

    assertThat(call(certificateFor("hooks.corp.example"), hits)).isEqualTo(204);
    assertThat(hits).hasValue(1);
  }

  @Test
  void aTrustedCertificateForAnotherNameIsRefused() throws Exception {
    AtomicInteger hits = new AtomicInteger();
    KeyStore other = certificateFor("other.example");

    assertThatThrownBy(() -> call(other, hits))
        .isInstanceOf(SSLException.class)
        .hasMessageContaining("hooks.corp.example"); // the name, not the trust, failed
    assertThat(hits).as("no request was sent over the unverified connection").hasValue(0);
  }
}
