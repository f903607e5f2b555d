package dev.ax.cli.text;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The columns of a {@link TextTable} whose rows are values of one type, each declared once with its
 * header, alignment, widest cell and how a row gives that cell, so that a header and its cells
 * cannot drift apart. Built with {@link #builder()}; immutable and thread-safe once built, as long
 * as the cell functions are (they should be pure).
 *
 * @param <T> the type of a row
 */
public final class Columns<T> {

  /** One column and how a row gives its cell ({@code null}: an empty cell). */
  private record Cell<T>(TextTable.Column column, Function<? super T, ?> value) {}

  private final List<Cell<T>> cells;

  private Columns(List<Cell<T>> cells) {
    this.cells = List.copyOf(cells);
  }

  public static <T> Builder<T> builder() {
    return new Builder<>();
  }

  /** A table of {@code rows}, one line each, in their order. */
  public TextTable table(Iterable<? extends T> rows) {
    TextTable table =
        new TextTable(cells.stream().map(Cell::column).toArray(TextTable.Column[]::new));
    for (T row : rows) {
      table.row(cells.stream().map(cell -> cell.value().apply(row)).toArray());
    }
    return table;
  }

  /** Adds columns left to right. Not thread-safe; used by the thread that declares the table. */
  public static final class Builder<T> {

    private final List<Cell<T>> cells = new ArrayList<>();

    private Builder() {}

    /** A left-aligned column of cells up to {@link TextTable.Column#left}'s default width. */
    public Builder<T> left(String header, Function<? super T, ?> value) {
      return add(TextTable.Column.left(header), value);
    }

    /** A left-aligned column whose cells are cut at {@code maxWidth} characters. */
    public Builder<T> left(String header, int maxWidth, Function<? super T, ?> value) {
      return add(TextTable.Column.left(header).maxWidth(maxWidth), value);
    }

    /** A right-aligned column, for numbers. */
    public Builder<T> right(String header, Function<? super T, ?> value) {
      return add(TextTable.Column.right(header), value);
    }

    public Columns<T> build() {
      return new Columns<>(cells);
    }

    private Builder<T> add(TextTable.Column column, Function<? super T, ?> value) {
      cells.add(new Cell<>(column, value));
      return this;
    }
  }
}
