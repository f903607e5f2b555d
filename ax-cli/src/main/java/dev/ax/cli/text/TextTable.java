package dev.ax.cli.text;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A plain-text table with a header row and aligned columns, for terminal output. Cells longer than
 * a column's maximum width are cut with {@code ...}. Not thread-safe; fill it, then print it.
 */
public final class TextTable {

  /** How a column's cells line up. */
  public enum Align {
    LEFT,
    RIGHT
  }

  /** One column: its header, alignment and widest cell (longer ones are cut). */
  public record Column(String header, Align align, int maxWidth) {
    public static Column left(String header) {
      return new Column(header, Align.LEFT, 40);
    }

    public static Column right(String header) {
      return new Column(header, Align.RIGHT, 20);
    }

    public Column maxWidth(int width) {
      return new Column(header, align, width);
    }
  }

  private static final String GAP = "  ";
  private static final String CUT = "...";

  private final List<Column> columns;
  private final List<String[]> rows = new ArrayList<>();

  public TextTable(Column... columns) {
    this.columns = List.of(columns);
  }

  /**
   * @throws IllegalArgumentException when the number of cells is not the number of columns
   */
  public TextTable row(Object... cells) {
    if (cells.length != columns.size()) {
      throw new IllegalArgumentException(
          "expected "
              + columns.size()
              + " cells, got "
              + cells.length
              + ": "
              + Arrays.toString(cells));
    }
    String[] texts = new String[cells.length];
    for (int i = 0; i < cells.length; i++) {
      texts[i] = fit(cells[i] == null ? "" : cells[i].toString(), columns.get(i).maxWidth());
    }
    rows.add(texts);
    return this;
  }

  public void print(PrintWriter out, String indent) {
    int[] widths = new int[columns.size()];
    for (int i = 0; i < widths.length; i++) {
      widths[i] = columns.get(i).header().length();
      for (String[] row : rows) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    String[] header = columns.stream().map(Column::header).toArray(String[]::new);
    out.println(indent + line(header, widths));
    String[] rule = new String[widths.length];
    for (int i = 0; i < widths.length; i++) {
      rule[i] = "-".repeat(widths[i]);
    }
    out.println(indent + line(rule, widths));
    for (String[] row : rows) {
      out.println(indent + line(row, widths));
    }
    out.flush();
  }

  private String line(String[] cells, int[] widths) {
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < cells.length; i++) {
      if (i > 0) {
        line.append(GAP);
      }
      String pad = " ".repeat(widths[i] - cells[i].length());
      boolean last = i == cells.length - 1;
      if (columns.get(i).align() == Align.RIGHT) {
        line.append(pad).append(cells[i]);
      } else {
        line.append(cells[i]).append(last ? "" : pad);
      }
    }
    return line.toString();
  }

  private static String fit(String text, int maxWidth) {
    String oneLine = text.replaceAll("\\s+", " ");
    if (oneLine.length() <= maxWidth) {
      return oneLine;
    }
    return oneLine.substring(0, Math.max(0, maxWidth - CUT.length())) + CUT;
  }
}
