package io.ringflow.samples.cli;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.time.Duration;
import java.time.format.DateTimeParseException;

/** Reads a duration as {@code 500ms}, {@code 5s}, {@code 1m}, {@code 2h}, or ISO-8601 ({@code PT5S}). */
public final class DurationConverter implements ITypeConverter<Duration>
{
    @Override
    public Duration convert(final String value)
    {
        final String text = value.trim().toLowerCase();
        try
        {
            if (text.startsWith("pt"))
            {
                return Duration.parse(text);
            }
            if (text.endsWith("ms"))
            {
                return Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)));
            }
            final long amount = Long.parseLong(text.substring(0, text.length() - 1));
            switch (text.charAt(text.length() - 1))
            {
                case 's':
                    return Duration.ofSeconds(amount);
                case 'm':
                    return Duration.ofMinutes(amount);
                case 'h':
                    return Duration.ofHours(amount);
                default:
                    break;
            }
        }
        catch (final NumberFormatException | DateTimeParseException | StringIndexOutOfBoundsException ex)
        {
            // the message below names the forms accepted
        }
        throw new TypeConversionException("'" + value + "' is not a duration: write 500ms, 5s, 1m, 2h or PT5S");
    }
}
