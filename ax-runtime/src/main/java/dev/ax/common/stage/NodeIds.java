package dev.ax.common.stage;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** A readable default node id: host name and pid. */
public final class NodeIds {
  private NodeIds() {}

  public static String defaultNodeId() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      host = "localhost";
    }
    return host + "-" + ProcessHandle.current().pid();
  }
}
