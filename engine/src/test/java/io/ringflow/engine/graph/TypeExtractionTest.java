package io.ringflow.engine.graph;

import io.ringflow.engine.api.functions.Collector;
import io.ringflow.engine.api.functions.FlatMapFunction;
import io.ringflow.engine.api.functions.KeyedProcessFunction;
import io.ringflow.engine.api.functions.MapFunction;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TypeExtractionTest
{
    record Point(int x, int y)
    {
    }

    static final class ToPoint implements MapFunction<Integer, Point>
    {
        @Override
        public Point map(final Integer value)
        {
            return new Point(value, value);
        }
    }

    static final class Counter extends KeyedProcessFunction<String, Point, Long>
    {
        @Override
        public void processElement(final Point value, final Context<String> ctx, final Collector<Long> out)
        {
        }
    }

    static Point makePoint(final Integer value)
    {
        return new Point(value, -value);
    }

    @Test
    void readsConcreteTypeArgumentsOfClasses()
    {
        assertThat(TypeExtraction.typeArgument(new ToPoint(), MapFunction.class, 1)).isEqualTo(Point.class);
        assertThat(TypeExtraction.typeArgument(new Counter(), KeyedProcessFunction.class, 2)).isEqualTo(Long.class);
        assertThat(TypeExtraction.typeArgument(new Counter(), KeyedProcessFunction.class, 0)).isEqualTo(String.class);
    }

    @Test
    void readsTheReturnTypeOfLambdasAndMethodReferences()
    {
        final MapFunction<Integer, Point> lambda = v -> new Point(v, v);
        final MapFunction<Integer, Point> reference = TypeExtractionTest::makePoint;
        final MapFunction<Integer, Long> primitive = v -> (long)v;
        assertThat(TypeExtraction.lambdaReturnType(lambda)).isEqualTo(Point.class);
        assertThat(TypeExtraction.lambdaReturnType(reference)).isEqualTo(Point.class);
        assertThat(TypeExtraction.lambdaReturnType(primitive)).isEqualTo(Long.class);
        assertThat(TypeExtraction.lambdaParameterType(lambda, 0)).isEqualTo(Integer.class);
    }

    @Test
    void givesUpOnErasedTypes()
    {
        final FlatMapFunction<Integer, String> flatMap = (v, out) -> out.collect("x");
        assertThat(TypeExtraction.typeArgument(flatMap, FlatMapFunction.class, 1)).isNull();
        assertThat(TypeExtraction.lambdaReturnType(flatMap)).isNull();
        assertThat(TypeExtraction.lambdaReturnType(new ToPoint())).isNull();
    }
}
