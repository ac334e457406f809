package io.ringflow.samples.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.ringflow.state.checkpoint.CheckpointCatalog;
import io.ringflow.state.checkpoint.CorruptCheckpointException;
import io.ringflow.state.inspect.CheckpointInspector;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code ringflow inspect <chk>}: what a checkpoint or savepoint holds, per operator and subtask. Verifies it first;
 * reads only.
 */
@Command(
    name = "inspect",
    header = "Shows what a checkpoint or savepoint holds: operators, source positions, state.",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpAutoWidth = true,
    showDefaultValues = true,
    description = {
        "Verifies the checkpoint as 'verify' does, then prints each operator by uid",
        "with its parallelism and max parallelism, the positions of its sources, and per",
        "subtask its keyed state per state name (kind, key and value types, entries,",
        "distinct keys, bytes, key groups; an incremental chain is merged first, as a",
        "restore would), and the sizes of its operator state and channel state (the",
        "in-flight records of an unaligned checkpoint). With --entries N it decodes the",
        "first N entries of each keyed state. Nothing is written.",
        ""
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        "0:shown",
        "1:damaged or incomplete: nothing is shown, each problem is printed",
        "2:invalid command line, CHECKPOINT is not a checkpoint, or no such operator"
    })
public final class InspectCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Parameters(paramLabel = "CHECKPOINT", description = "A chk-<n> folder or its _metadata file.")
    private Path checkpoint;

    @Option(names = "--operator", paramLabel = "UID", description = "Only this operator.")
    private String operator;

    @Option(names = "--state", paramLabel = "NAME", description = "Only keyed states of this name.")
    private String state;

    @Option(names = {"--entries", "--limit"}, paramLabel = "N", defaultValue = "-1",
        showDefaultValue = Help.Visibility.NEVER,
        description = "Decode the first N entries of each keyed state (key group order); default none, or every " +
            "matching one with --key or --key-group.")
    private int entries;

    @Option(names = "--key", paramLabel = "K",
        description = "Only entries whose key reads K (as decoded: 42, alice); all of them unless --entries is given.")
    private String key;

    @Option(names = "--key-group", paramLabel = "G", defaultValue = "-1", showDefaultValue = Help.Visibility.NEVER,
        description = "Only entries of key group G; all of them unless --entries is given.")
    private int keyGroup;

    @Option(names = "--json", description = "Print JSON in the documented schema (docs/operations.md) instead of text.")
    private boolean json;

    @Option(names = "--classpath", paramLabel = "PATH",
        description = "Jars or folders holding the job's own key and value types, separated by " +
            "'${sys:path.separator}'," +
            " to decode them; built-in types need none.")
    private String classpath;

    @Override
    public Integer call() throws MalformedURLException
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        if (entries < -1)
        {
            err.println("ringflow inspect: --entries must be >= 0, was " + entries);
            return 2;
        }
        if (keyGroup < -1)
        {
            err.println("ringflow inspect: --key-group must be >= 0, was " + keyGroup);
            return 2;
        }
        final boolean selecting = key != null || keyGroup >= 0;
        final CheckpointInspector.EntryFilter filter = new CheckpointInspector.EntryFilter(
            entries >= 0 ? entries : selecting ? Integer.MAX_VALUE : 0, key, keyGroup);
        final CheckpointCatalog.Report report;
        try
        {
            report = CheckpointCatalog.verify(checkpoint);
        }
        catch (final NoSuchFileException ex)
        {
            err.println("ringflow inspect: no such checkpoint: " + checkpoint);
            return 2;
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("ringflow inspect: " + ex.getMessage());
            return 2;
        }
        catch (final IOException ex)
        {
            err.println("ringflow inspect: cannot read " + checkpoint + ": " + ex);
            return 2;
        }
        if (!report.intact())
        {
            for (final String problem : report.problems())
            {
                out.println("problem: " + problem);
            }
            out.println("DAMAGED: chk-" + report.checkpointId() + " cannot be inspected; see 'ringflow verify'");
            return 1;
        }
        final List<CheckpointInspector.OperatorView> operators;
        try
        {
            operators = CheckpointInspector.inspect(report, operator, state, filter, classLoader());
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("ringflow inspect: " + ex.getMessage());
            return 2;
        }
        catch (final IOException | CorruptCheckpointException ex)
        {
            err.println("ringflow inspect: " + ex.getMessage());
            return 1;
        }
        if (json)
        {
            try
            {
                printJson(out, report, operators);
            }
            catch (final IOException ex)
            {
                err.println("ringflow inspect: cannot write JSON: " + ex);
                return 1;
            }
            return 0;
        }
        out.println("chk-" + report.checkpointId() + " (" + report.folder() + "): " +
            (report.savepoint() ? "savepoint" : "checkpoint") + ", triggered " +
            CheckpointsCommand.TIME.format(Instant.ofEpochMilli(report.metadata().triggerMillis())) + " UTC");
        for (final CheckpointInspector.OperatorView view : operators)
        {
            print(out, view);
        }
        return 0;
    }

    private static void print(final PrintWriter out, final CheckpointInspector.OperatorView view)
    {
        out.println("operator " + view.uid() + ": parallelism " + view.parallelism() +
            (view.maxParallelism() > 0 ? ", max parallelism " + view.maxParallelism() : "") +
            (view.sourcePositions().isEmpty() ? "" : ", source"));
        for (int i = 0; i < view.sourcePositions().size(); i++)
        {
            out.printf("  subtask %d: source position %,d%n", i, view.sourcePositions().get(i));
        }
        for (final CheckpointInspector.SubtaskView subtask : view.subtasks())
        {
            out.printf("  subtask %d: keyed state %s, operator state %,d bytes, channel state %,d bytes%n",
                subtask.index(), chain(subtask.keyedFiles().size()), subtask.operatorBytes(), subtask.channelBytes());
            for (final CheckpointInspector.KeyedStateView keyed : subtask.keyed())
            {
                out.printf("    state '%s' %s, key %s, %s%s: %,d entries, %,d keys, %,d bytes, %,d key groups%n",
                    keyed.meta().name(), keyed.meta().kind(), keyed.meta().keyType(),
                    keyed.meta().userKeyType().isEmpty() ? "" : "user key " + keyed.meta().userKeyType() + ", ",
                    "value " + keyed.meta().valueType() + (keyed.meta().timeToLive() ? " (with time-to-live)" : ""),
                    keyed.entries(), keyed.keys(), keyed.bytes(), keyed.keyGroups());
                for (final CheckpointInspector.Entry sample : keyed.samples())
                {
                    out.println("      " + sample);
                }
            }
            for (final CheckpointInspector.ChannelView channel : subtask.channels())
            {
                out.printf("    in-flight on input channel %d (operator input %d): %,d records, %,d bytes%n",
                    channel.channel(), channel.inputIndex(), channel.records(), channel.bytes());
            }
        }
    }

    /** Schema "ringflow-inspect/1", documented in docs/operations.md: fields are only ever added, never changed. */
    private static void printJson(final PrintWriter out, final CheckpointCatalog.Report report,
        final List<CheckpointInspector.OperatorView> operators) throws IOException
    {
        try (JsonGenerator json =
            new JsonFactory().createGenerator(new NonClosingWriter(out)).useDefaultPrettyPrinter())
        {
            json.writeStartObject();
            json.writeStringField("schema", "ringflow-inspect/1");
            json.writeObjectFieldStart("checkpoint");
            json.writeNumberField("id", report.checkpointId());
            json.writeStringField("folder", report.folder().toString());
            json.writeStringField("kind", report.savepoint() ? "savepoint" : "checkpoint");
            json.writeStringField("triggered", Instant.ofEpochMilli(report.metadata().triggerMillis()).toString());
            json.writeNumberField("stateFiles", report.stateFiles());
            json.writeNumberField("stateBytes", report.stateBytes());
            json.writeEndObject();
            json.writeArrayFieldStart("operators");
            for (final CheckpointInspector.OperatorView view : operators)
            {
                json.writeStartObject();
                json.writeStringField("uid", view.uid());
                json.writeNumberField("parallelism", view.parallelism());
                json.writeNumberField("maxParallelism", view.maxParallelism());
                json.writeArrayFieldStart("sourcePositions");
                for (final long position : view.sourcePositions())
                {
                    json.writeNumber(position);
                }
                json.writeEndArray();
                json.writeArrayFieldStart("subtasks");
                for (final CheckpointInspector.SubtaskView subtask : view.subtasks())
                {
                    writeSubtask(json, subtask);
                }
                json.writeEndArray();
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeEndObject();
        }
        out.println();
        out.flush();
    }

    private static void writeSubtask(final JsonGenerator json, final CheckpointInspector.SubtaskView subtask)
        throws IOException
    {
        json.writeStartObject();
        json.writeNumberField("index", subtask.index());
        json.writeArrayFieldStart("keyedFiles");
        for (final String file : subtask.keyedFiles())
        {
            json.writeString(file);
        }
        json.writeEndArray();
        json.writeNumberField("operatorStateBytes", subtask.operatorBytes());
        json.writeNumberField("channelStateBytes", subtask.channelBytes());
        json.writeArrayFieldStart("channels");
        for (final CheckpointInspector.ChannelView channel : subtask.channels())
        {
            json.writeStartObject();
            json.writeNumberField("channel", channel.channel());
            json.writeNumberField("inputIndex", channel.inputIndex());
            json.writeNumberField("records", channel.records());
            json.writeNumberField("bytes", channel.bytes());
            json.writeEndObject();
        }
        json.writeEndArray();
        json.writeArrayFieldStart("keyedStates");
        for (final CheckpointInspector.KeyedStateView keyed : subtask.keyed())
        {
            json.writeStartObject();
            json.writeStringField("name", keyed.meta().name());
            json.writeStringField("kind", keyed.meta().kind().name());
            json.writeStringField("keyType", keyed.meta().keyType());
            json.writeStringField("userKeyType", keyed.meta().userKeyType().isEmpty() ? null :
                keyed.meta().userKeyType());
            json.writeStringField("valueType", keyed.meta().valueType());
            json.writeBooleanField("timeToLive", keyed.meta().timeToLive());
            json.writeNumberField("entries", keyed.entries());
            json.writeNumberField("keys", keyed.keys());
            json.writeNumberField("bytes", keyed.bytes());
            json.writeNumberField("keyGroups", keyed.keyGroups());
            json.writeArrayFieldStart("entrySamples");
            for (final CheckpointInspector.Entry entry : keyed.samples())
            {
                json.writeStartObject();
                json.writeNumberField("keyGroup", entry.keyGroup());
                json.writeStringField("key", entry.key());
                json.writeStringField("userKey", entry.userKey());
                json.writeStringField("value", entry.value());
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeEndObject();
        }
        json.writeEndArray();
        json.writeEndObject();
    }

    /** The command's writer, which its caller owns: the generator may flush it but not close it. */
    private static final class NonClosingWriter extends java.io.FilterWriter
    {
        NonClosingWriter(final PrintWriter out)
        {
            super(out);
        }

        @Override
        public void close()
        {
            flush();
        }

        @Override
        public void flush()
        {
            try
            {
                super.flush();
            }
            catch (final IOException ex)
            {
                throw new java.io.UncheckedIOException(ex);
            }
        }
    }

    private static String chain(final int files)
    {
        return files == 0 ? "none" : files == 1 ? "from 1 full snapshot" :
            "from " + files + " files (a full snapshot and " + (files - 1) + " increments)";
    }

    private ClassLoader classLoader() throws MalformedURLException
    {
        final ClassLoader parent = InspectCommand.class.getClassLoader();
        if (classpath == null || classpath.isBlank())
        {
            return parent;
        }
        final List<URL> urls = new ArrayList<>();
        for (final String entry : classpath.split(File.pathSeparator))
        {
            if (!entry.isBlank())
            {
                urls.add(Path.of(entry).toUri().toURL());
            }
        }
        return new URLClassLoader(urls.toArray(new URL[0]), parent);
    }
}
