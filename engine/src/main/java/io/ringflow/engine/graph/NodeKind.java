package io.ringflow.engine.graph;

/**
 * The shape of a logical node: how many inputs, whether it has an output.
 */
public enum NodeKind
{
    /** No input; reads a source. */
    SOURCE,
    /** One logical input (possibly a union of several edges). */
    ONE_INPUT,
    /** Two inputs of possibly different types. */
    TWO_INPUT,
    /** One input, no output. */
    SINK
}
