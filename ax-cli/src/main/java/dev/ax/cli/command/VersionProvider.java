package dev.ax.cli.command;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/** {@code ax --version}: the project version, filtered into a resource by the build. */
public final class VersionProvider implements IVersionProvider {

  private static final String RESOURCE = "/dev/ax/cli/version.properties";

  @Override
  public String[] getVersion() throws IOException {
    Properties properties = new Properties();
    try (InputStream in = VersionProvider.class.getResourceAsStream(RESOURCE)) {
      if (in != null) {
        properties.load(in);
      }
    }
    return new String[] {
      "AX " + properties.getProperty("version", "(unknown version)"),
      "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"
    };
  }
}
