package io.ringflow.samples.pageview;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * What a page-view run writing exactly-once output into a directory generates, stored beside the output so that
 * {@code verify-output} can recompute the expected counts with the directory alone. A later run (a resume after a
 * crash) must generate the same, or it is refused.
 *
 * @param events      views generated in all.
 * @param apps        applications.
 * @param parallelism source subtasks (views are dealt round-robin over them).
 */
public record OutputManifest(long events, int apps, int parallelism)
{
    /** The manifest's file name in the output directory. */
    public static final String FILE = "page-view-output.properties";

    /**
     * Writes the manifest, or checks the one already there.
     *
     * @param directory the output directory, created when missing.
     * @throws IOException              when it cannot be written.
     * @throws IllegalArgumentException when the directory holds output of a run with other options.
     */
    public void writeOrCheck(final Path directory) throws IOException
    {
        final Path file = directory.resolve(FILE);
        if (Files.exists(file))
        {
            final OutputManifest existing = read(directory);
            if (!existing.equals(this))
            {
                throw new IllegalArgumentException("output directory " + directory + " holds output of a run with " +
                    "--events " + existing.events + " --apps " + existing.apps + " --parallelism " +
                    existing.parallelism + "; this run has --events " + events + " --apps " + apps +
                    " --parallelism " + parallelism + ": resume with the same options or use another directory");
            }
            return;
        }
        Files.createDirectories(directory);
        final Properties properties = new Properties();
        properties.setProperty("events", Long.toString(events));
        properties.setProperty("apps", Integer.toString(apps));
        properties.setProperty("parallelism", Integer.toString(parallelism));
        final Path temporary = directory.resolve(FILE + ".tmp");
        try (Writer writer = Files.newBufferedWriter(temporary, StandardCharsets.UTF_8))
        {
            properties.store(writer, "page-view exactly-once output: what the run generates");
        }
        Files.move(temporary, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * @param directory an output directory.
     * @return its manifest.
     * @throws IOException              when there is none or it cannot be read.
     * @throws IllegalArgumentException when it is malformed.
     */
    public static OutputManifest read(final Path directory) throws IOException
    {
        final Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(directory.resolve(FILE), StandardCharsets.UTF_8))
        {
            properties.load(reader);
        }
        try
        {
            return new OutputManifest(Long.parseLong(properties.getProperty("events")),
                Integer.parseInt(properties.getProperty("apps")),
                Integer.parseInt(properties.getProperty("parallelism")));
        }
        catch (final RuntimeException ex)
        {
            throw new IllegalArgumentException(directory.resolve(FILE) + " is malformed: " + properties, ex);
        }
    }

    /** @return by application, the views the run generates. */
    public long[] expectedCounts()
    {
        final long[] emitted = new long[parallelism];
        for (int s = 0; s < parallelism; s++)
        {
            emitted[s] = events > s ? (events - s + parallelism - 1) / parallelism : 0;
        }
        return PageViewCount.expectedCounts(apps, emitted);
    }
}
