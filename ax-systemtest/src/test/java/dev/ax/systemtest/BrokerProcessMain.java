package dev.ax.systemtest;

import dev.ax.embedded.EmbeddedKafka;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * A single-node Kafka broker ({@link EmbeddedKafka}) as a JVM of its own, on fixed loopback ports
 * and a fixed data directory, so that a test can kill it with SIGKILL and start it again on the
 * same ports and data, as a broker host that crashed and came back.
 *
 * <p>Arguments: {@code <dataDir> <brokerPort> <controllerPort>}. Prints {@value #READY} once the
 * broker answers a DescribeCluster; stops the broker on SIGTERM.
 */
public final class BrokerProcessMain {

  /** The line printed once the broker is ready. */
  static final String READY = "broker process ready";

  private BrokerProcessMain() {}

  public static void main(String[] args) throws InterruptedException {
    if (args.length != 3) {
      System.err.println("usage: BrokerProcessMain <dataDir> <brokerPort> <controllerPort>");
      System.exit(2);
    }
    EmbeddedKafka kafka =
        EmbeddedKafka.start(Path.of(args[0]), Integer.parseInt(args[1]), Integer.parseInt(args[2]));
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  kafka.close();
                  stopped.countDown();
                },
                "broker-shutdown"));
    System.out.println(READY + " at " + kafka.bootstrapServers());
    System.out.flush();
    stopped.await();
  }
}
