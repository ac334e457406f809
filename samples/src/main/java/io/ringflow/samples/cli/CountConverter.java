package io.ringflow.samples.cli;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.util.Locale;

/**
 * Reads a count such as {@code 50000000}, {@code 50_000_000}, {@code 50,000,000} or {@code 50M}: digits with optional
 * {@code _} or {@code ,} separators, an optional sign, and an optional suffix {@code k}, {@code M} or {@code G}
 * (10^3, 10^6, 10^9; any case). Range checks are the command's.
 */
public final class CountConverter implements ITypeConverter<Long>
{
    @Override
    public Long convert(final String value)
    {
        String text = value.strip().replace("_", "").replace(",", "");
        long multiplier = 1;
        if (!text.isEmpty())
        {
            switch (Character.toLowerCase(text.charAt(text.length() - 1)))
            {
                case 'k' -> multiplier = 1_000L;
                case 'm' -> multiplier = 1_000_000L;
                case 'g' -> multiplier = 1_000_000_000L;
                default -> multiplier = 1;
            }
            if (multiplier != 1)
            {
                text = text.substring(0, text.length() - 1);
            }
        }
        try
        {
            return Math.multiplyExact(Long.parseLong(text), multiplier);
        }
        catch (final NumberFormatException | ArithmeticException ex)
        {
            throw new TypeConversionException(String.format(Locale.ROOT,
                "'%s' is not a count (examples: 2000000, 2_000_000, 2M, 500k)", value));
        }
    }
}
