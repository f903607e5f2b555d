package dev.ax.dispatcher.executor.shell;

/** Task input quoted for a one-line reason. */
final class Quoting {

  private Quoting() {}

  /**
   * {@code text} made safe to put into a one-line reason: control characters become {@code ?} and
   * anything past {@code maxChars} is cut. Task input is quoted through this, so a crafted script
   * name cannot forge log lines.
   */
  static String quote(String text, int maxChars) {
    if (text == null) {
      return "null";
    }
    StringBuilder out = new StringBuilder(Math.min(text.length(), maxChars) + 3);
    out.append('\'');
    for (int i = 0; i < text.length() && i < maxChars; i++) {
      char c = text.charAt(i);
      out.append(Character.isISOControl(c) ? '?' : c);
    }
    if (text.length() > maxChars) {
      out.append('…');
    }
    return out.append('\'').toString();
  }
}
