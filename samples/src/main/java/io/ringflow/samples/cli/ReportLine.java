package io.ringflow.samples.cli;

import java.io.PrintWriter;

/**
 * One line of a report printed while a job runs, built in a builder and a character buffer kept from line to line,
 * with the number formats of {@code String.format(Locale.ROOT, ...)} the report used before: {@code %W.1f} of a
 * duration and {@code %,Wd} of a count. The page-view sample prints one a second; with a format string each line
 * left about 16 KB of garbage on the monitoring thread (the formatter's parse, decimal symbols, boxed arguments),
 * which counted against the job's collections. This one allocates nothing once its buffers are large enough.
 *
 * <p>Thread contract: one thread.
 */
final class ReportLine
{
    private final StringBuilder line = new StringBuilder(128);
    private char[] chars = new char[128];

    /** @return the builder, emptied: append the line to it. */
    StringBuilder start()
    {
        line.setLength(0);
        return line;
    }

    /**
     * Prints what {@link #start()}'s builder holds and a line separator.
     *
     * @param out where.
     */
    void printTo(final PrintWriter out)
    {
        line.append(System.lineSeparator());
        if (chars.length < line.length())
        {
            chars = new char[line.length() * 2];
        }
        line.getChars(0, line.length(), chars, 0);
        out.write(chars, 0, line.length());
    }

    /**
     * Appends {@code String.format(Locale.ROOT, "%" + width + ".1f", nanos / (double)unitNanos)}: the duration in the
     * unit with one decimal, rounded half up, right-aligned in {@code width} characters.
     *
     * @param line      where.
     * @param width     the least number of characters.
     * @param nanos     the duration, of magnitude under 2^53 ns (beyond, the double the format had was inexact).
     * @param unitNanos the unit: 1,000 for microseconds, 1,000,000,000 for seconds; a power of ten of at least 10.
     * @return {@code line}.
     */
    static StringBuilder appendTenths(final StringBuilder line, final int width, final long nanos,
        final long unitNanos)
    {
        final int start = line.length();
        // tenths of the unit, rounded half up on the exact decimal: the formatter rounds the shortest decimal of the
        // double, which for durations under 2^53 ns is the exact one
        final long tenth = unitNanos / 10;
        final long magnitude = Math.abs(nanos);
        final long tenths = magnitude / tenth + (magnitude % tenth >= (tenth + 1) / 2 ? 1 : 0);
        if (nanos < 0)
        {
            line.append('-');
        }
        line.append(tenths / 10).append('.').append(tenths % 10);
        return padLeft(line, start, width);
    }

    /**
     * Appends {@code String.format(Locale.ROOT, "%," + width + "d", value)}: grouped in thousands by commas,
     * right-aligned in {@code width} characters.
     *
     * @param line  where.
     * @param width the least number of characters.
     * @param value the count.
     * @return {@code line}.
     */
    static StringBuilder appendGrouped(final StringBuilder line, final int width, final long value)
    {
        final int start = line.length();
        line.append(value);
        final int firstDigit = value < 0 ? start + 1 : start;
        for (int comma = line.length() - 3; comma > firstDigit; comma -= 3)
        {
            line.insert(comma, ',');
        }
        return padLeft(line, start, width);
    }

    /**
     * Appends {@code "-"} right-aligned in {@code width} characters, as {@code "%" + width + "s"} of it.
     *
     * @param line  where.
     * @param width the least number of characters.
     * @return {@code line}.
     */
    static StringBuilder appendDash(final StringBuilder line, final int width)
    {
        final int start = line.length();
        line.append('-');
        return padLeft(line, start, width);
    }

    /** Inserts spaces at {@code start} until what follows it is {@code width} characters long. */
    private static StringBuilder padLeft(final StringBuilder line, final int start, final int width)
    {
        for (int length = line.length() - start; length < width; length++)
        {
            line.insert(start, ' ');
        }
        return line;
    }
}
