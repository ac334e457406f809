package io.ringflow.samples.cli;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Locale;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** The report's line reads exactly as the {@code String.format} it replaced, for any durations and counts. */
class ReportLineTest
{
    private static final long[] EDGES = {0, 1, 49, 50, 51, 99, 100, 149, 150, 951, 999_949, 999_950, 1_234_550,
        49_999_999, 50_000_000, 50_000_001, 149_999_999, 150_000_000, 999_999_999, 1_000_000_000, 9_950_000_000L,
        999_999_950_000_000L, -1, -49, -50, -51, -150, -50_000_000};
    /** Counts are exact over every long; a duration's double only up to 2^53 ns (104 days), the contract's range. */
    private static final long[] COUNT_EDGES = {0, 1, 999, 1_000, -999, -1_000, 999_999, 1_000_000, Long.MAX_VALUE,
        Long.MIN_VALUE, Long.MIN_VALUE + 1};

    @Test
    void durationsReadAsTheFormatWithOneDecimal()
    {
        final SplittableRandom random = new SplittableRandom(20261207L);
        final StringBuilder line = new StringBuilder();
        for (int i = 0; i < 50_000; i++)
        {
            // rounding's edges, then any duration up to a day, or a multiple of a half tenth of either unit
            final long nanos = i < EDGES.length ? EDGES[i] : switch (random.nextInt(4))
            {
                case 0 -> random.nextLong(-1_000, 86_400_000_000_000L);
                case 1 -> random.nextLong(0, 1_000_000) * 50;
                case 2 -> random.nextLong(0, 100_000) * 50_000_000;
                default -> random.nextLong(0, 10_000);
            };
            final int width = random.nextInt(12);
            for (final long unit : new long[] {1_000, 1_000_000_000})
            {
                line.setLength(0);
                assertThat(ReportLine.appendTenths(line.append("x"), width, nanos, unit).toString())
                    .as("%d ns in units of %d ns, width %d", nanos, unit, width)
                    .isEqualTo("x" + String.format(Locale.ROOT, "%" + Math.max(1, width) + ".1f",
                        nanos / (double)unit));
            }
        }
    }

    @Test
    void countsReadAsTheFormatGroupedInThousands()
    {
        final SplittableRandom random = new SplittableRandom(7L);
        final StringBuilder line = new StringBuilder();
        for (int i = 0; i < 50_000; i++)
        {
            final long value = i < COUNT_EDGES.length ? COUNT_EDGES[i] : switch (random.nextInt(3))
            {
                case 0 -> random.nextLong();
                case 1 -> random.nextLong(-10_000, 10_000);
                default -> random.nextLong(0, 10_000_000_000L);
            };
            final int width = random.nextInt(20);
            line.setLength(0);
            assertThat(ReportLine.appendGrouped(line.append("x"), width, value).toString())
                .as("%d, width %d", value, width)
                .isEqualTo("x" + String.format(Locale.ROOT, "%," + Math.max(1, width) + "d", value));
        }
    }

    @Test
    void aLineIsPrintedWholeWithItsSeparatorAndTheBuilderStartsEmptyEachTime()
    {
        final StringWriter printed = new StringWriter();
        final PrintWriter out = new PrintWriter(printed);
        final ReportLine report = new ReportLine();
        final String longer = "y".repeat(300);
        report.start().append("first");
        report.printTo(out);
        ReportLine.appendDash(report.start().append(longer), 10);
        report.printTo(out);
        out.flush();

        assertThat(printed.toString()).isEqualTo("first" + System.lineSeparator() + longer +
            String.format(Locale.ROOT, "%10s", "-") + System.lineSeparator());
    }
}
