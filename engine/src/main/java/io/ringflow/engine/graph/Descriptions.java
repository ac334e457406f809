package io.ringflow.engine.graph;

import io.ringflow.engine.api.functions.CoProcessFunction;
import io.ringflow.engine.api.functions.FilterFunction;
import io.ringflow.engine.api.functions.FlatMapFunction;
import io.ringflow.engine.api.functions.KeySelector;
import io.ringflow.engine.api.functions.KeyedProcessFunction;
import io.ringflow.engine.api.functions.MapFunction;
import io.ringflow.engine.api.sink.Sink;
import io.ringflow.engine.api.source.Source;
import io.ringflow.state.keyed.ReduceFunction;

import java.util.Objects;

/**
 * The operator descriptions the API builds today, one record per kind. See {@link OperatorDescription}.
 */
public final class Descriptions
{
    private Descriptions()
    {
    }

    private static String simpleName(final Class<?> type, final String fallback)
    {
        final String name = type.getSimpleName();
        return name.isEmpty() || name.contains("$$Lambda") ? fallback : name;
    }

    /**
     * Reads a source; one reader per subtask.
     *
     * @param source the user's source, shared by every subtask (each creates its own reader from it).
     */
    public record SourceOp(Source<?> source) implements OperatorDescription
    {
        /** Checks that nothing is missing. */
        public SourceOp
        {
            Objects.requireNonNull(source, "source");
        }

        @Override
        public NodeKind shape()
        {
            return NodeKind.SOURCE;
        }

        @Override
        public String defaultName()
        {
            return "Source";
        }
    }

    /** @param function one record out per record in. */
    public record MapOp(UserFunction<? extends MapFunction<?, ?>> function) implements OperatorDescription
    {
        /** Checks that nothing is missing. */
        public MapOp
        {
            Objects.requireNonNull(function, "function");
        }

        @Override
        public NodeKind shape()
        {
            return NodeKind.ONE_INPUT;
        }

        @Override
        public String defaultName()
        {
            return "Map";
        }

        @Override
        public Object sharedUserObject()
        {
            return function.shared();
        }

        @Override
        public boolean finalFieldsMayBeShared()
        {
            return true;
        }
    }

    /** @param function keeps the records for which it returns true. */
    public record FilterOp(UserFunction<? extends FilterFunction<?>> function) implements OperatorDescription
    {
        /** Checks that nothing is missing. */
        public FilterOp
        {
            Objects.requireNonNull(function, "function");
        }

        @Override
        public NodeKind shape()
        {
            return NodeKind.ONE_INPUT;
        }

        @Override
        public String defaultName()
        {
            return "Filter";
        }

        @Override
        public Object sharedUserObject()
        {
            return function.shared();
        }

        @Override
        public boolean finalFieldsMayBeShared()
        {
            return true;
        }
    }

    /** @param function zero or more records out per record in. */
    public record FlatMapOp(UserFunction<? extends FlatMapFunction<?, ?>> function) implements OperatorDescription
    {
        /** Checks that nothing is missing. */
        public FlatMapOp
        {
            Objects.requireNonNull(function, "function");
        }

        @Override
        public NodeKind shape()
        {
            return NodeKind.ONE_INPUT;
        }

        @Override
        public String defaultName()
        {
            return "FlatMap";
        }

        @Override
        public Object sharedUserObject()
        {
            return function.shared();
        }

        @Override
        public boolean finalFieldsMayBeShared()
        {
            return true;
        }
    }

    /**
     * A keyed process function: keyed state scoped to each record's key.
     *
     * @param function    the function.
     * @param keySelector the key of the input (the one that partitioned it).
     */
    public record KeyedProcessOp(
        UserFunction<? extends KeyedProcessFunction<?, ?, ?>> function, KeySelector<?, ?> keySelector)
        implements OperatorDescription
    {
        /** Checks that nothing is missing. */
        public KeyedProcessOp
        {
            Objects.requireNonNull(function, "function");
            Objects.requireNonNull(keySelector, "keySelector");
        }

        @Override
        public NodeKind shape()
        {
            return NodeKind.ONE_INPUT;
        }

        @Override
        public String defaultName()
        {
            return simpleName(function.type(), "KeyedProcess");
        }

        @Override
        public boolean keyedState()
        {
            return true;
        }

        @Override
        public Object sharedUserObject()
        {
            return function.shared();
        }
    }

    /**
     * A rolling reduce per key: each record is folded into the key's value so far, which is kept in keyed state and
     * emitted ({@code KeyedStream.reduce}, and the aggregations {@code sum}, {@code min}, {@code max}, {@code minBy},
     * {@code maxBy}, which are reduce functions).
     *
     * @param function    folds the value so far and a record into the new value.
     * @param keySelector the key of the input (the one that partitioned it).
     * @param type        the record type: what the state holds and the operator emits.
     * @param name        the operator's default name, e.g. {@code Reduce} or {@code Sum(count)}.
     */
    public record KeyedReduceOp(
        UserFunction<? extends ReduceFunction<?>> function, KeySelector<?, ?> keySelector, Class<?> type, String name)
        implements OperatorDescription
    {
        /** Checks that nothing is missing. */
        public KeyedReduceOp
        {
            Objects.requireNonNull(function, "function");
            Objects.requireNonNull(keySelector, "keySelector");
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(name, "name");
        }

        @Override
        public NodeKind shape()
        {
            return NodeKind.ONE_INPUT;
        }

        @Override
        public String defaultName()
        {
            return name;
        }

        @Override
        public boolean keyedState()
        {
            return true;
        }

        @Override
        public Object sharedUserObject()
        {
            return function.shared();
        }

        @Override
        public boolean finalFieldsMayBeShared()
        {
            return true;
        }
    }

    /**
     * A two-input function; when both inputs are keyed, keyed state is scoped to each record's key.
     *
     * @param function     the function.
     * @param keySelector1 the first input's key, or null when the inputs are not keyed.
     * @param keySelector2 the second input's key, or null when the inputs are not keyed.
     */
    public record CoProcessOp(
        UserFunction<? extends CoProcessFunction<?, ?, ?>> function, KeySelector<?, ?> keySelector1,
        KeySelector<?, ?> keySelector2) implements OperatorDescription
    {
        /** Checks that nothing is missing and that both inputs or neither are keyed. */
        public CoProcessOp
        {
            Objects.requireNonNull(function, "function");
            if ((keySelector1 == null) != (keySelector2 == null))
            {
                throw new IllegalArgumentException("either both inputs are keyed or neither is");
            }
        }

        @Override
        public NodeKind shape()
        {
            return NodeKind.TWO_INPUT;
        }

        @Override
        public String defaultName()
        {
            return simpleName(function.type(), "CoProcess");
        }

        @Override
        public boolean keyedState()
        {
            return keySelector1 != null;
        }

        @Override
        public Object sharedUserObject()
        {
            return function.shared();
        }
    }

    /**
     * Writes records out; one writer per subtask.
     *
     * @param sink the user's sink, shared by every subtask (each creates its own writer from it).
     */
    public record SinkOp(Sink<?> sink) implements OperatorDescription
    {
        /** Checks that nothing is missing. */
        public SinkOp
        {
            Objects.requireNonNull(sink, "sink");
        }

        @Override
        public NodeKind shape()
        {
            return NodeKind.SINK;
        }

        @Override
        public String defaultName()
        {
            return "Sink";
        }
    }

    /**
     * Gives records timestamps and generates watermarks ({@code assignTimestampsAndWatermarks}).
     *
     * @param strategy the user's strategy; each subtask creates its own generator from it.
     */
    public record TimestampsAndWatermarksOp(io.ringflow.engine.api.eventtime.WatermarkStrategy<?> strategy)
        implements OperatorDescription
    {
        /** Checks that nothing is missing. */
        public TimestampsAndWatermarksOp
        {
            Objects.requireNonNull(strategy, "strategy");
        }

        @Override
        public NodeKind shape()
        {
            return NodeKind.ONE_INPUT;
        }

        @Override
        public String defaultName()
        {
            return "Timestamps/Watermarks";
        }
    }

    /**
     * Windows on a keyed stream ({@code KeyedStream.window(...)}): exactly one of {@code reduce}, {@code aggregate}
     * and {@code process} is set.
     *
     * @param assigner              which windows a record belongs to.
     * @param trigger               when a window fires.
     * @param allowedLatenessMillis how long after its end a window still takes records.
     * @param lateTag               the side output of records too late for every window, or null.
     * @param keySelector           the key.
     * @param reduce                a reduce function, or null.
     * @param aggregate             an aggregate function, or null.
     * @param process               a whole-contents window function, or null.
     * @param result                turns a window's value into the emitted record, or null.
     * @param valueType             the type of a window's value (the input type, or the accumulator's).
     * @param inputType             the record type.
     * @param functionName          the function's name, for the operator's default name.
     */
    public record WindowOp(
        io.ringflow.engine.api.windowing.WindowAssigner assigner,
        io.ringflow.engine.api.windowing.Trigger trigger,
        long allowedLatenessMillis,
        io.ringflow.engine.api.functions.OutputTag<?> lateTag,
        KeySelector<?, ?> keySelector,
        ReduceFunction<?> reduce,
        io.ringflow.state.keyed.AggregateFunction<?, ?, ?> aggregate,
        UserFunction<? extends io.ringflow.engine.api.windowing.ProcessWindowFunction<?, ?, ?>> process,
        io.ringflow.engine.api.windowing.WindowResultFunction<?, ?, ?> result,
        Class<?> valueType,
        Class<?> inputType,
        String functionName) implements OperatorDescription
    {
        /** Checks that nothing is missing. */
        public WindowOp
        {
            Objects.requireNonNull(assigner, "assigner");
            Objects.requireNonNull(trigger, "trigger");
            Objects.requireNonNull(keySelector, "keySelector");
            Objects.requireNonNull(inputType, "inputType");
            if ((reduce != null ? 1 : 0) + (aggregate != null ? 1 : 0) + (process != null ? 1 : 0) != 1)
            {
                throw new IllegalArgumentException("exactly one of reduce, aggregate and process");
            }
        }

        @Override
        public NodeKind shape()
        {
            return NodeKind.ONE_INPUT;
        }

        @Override
        public String defaultName()
        {
            return "Window(" + assigner + ", " + functionName + ")";
        }

        @Override
        public boolean keyedState()
        {
            return true;
        }

        @Override
        public Object sharedUserObject()
        {
            return process == null ? null : process.shared();
        }
    }

    /**
     * Two keyed inputs into a {@code KeyedCoProcessFunction} ({@code connect(...).process(...)} on two keyed streams).
     *
     * @param function     the user's function.
     * @param keySelector1 the first input's key.
     * @param keySelector2 the second input's key.
     */
    public record KeyedCoProcessOp(
        UserFunction<? extends io.ringflow.engine.api.functions.KeyedCoProcessFunction<?, ?, ?, ?>> function,
        KeySelector<?, ?> keySelector1, KeySelector<?, ?> keySelector2) implements OperatorDescription
    {
        /** Checks that nothing is missing. */
        public KeyedCoProcessOp
        {
            Objects.requireNonNull(function, "function");
            Objects.requireNonNull(keySelector1, "keySelector1");
            Objects.requireNonNull(keySelector2, "keySelector2");
        }

        @Override
        public NodeKind shape()
        {
            return NodeKind.TWO_INPUT;
        }

        @Override
        public String defaultName()
        {
            return simpleName(function.type(), "KeyedCoProcess");
        }

        @Override
        public boolean keyedState()
        {
            return true;
        }

        @Override
        public Object sharedUserObject()
        {
            return function.shared();
        }
    }
}
