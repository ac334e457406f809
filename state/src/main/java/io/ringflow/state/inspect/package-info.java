/**
 * Reading a checkpoint's contents for people: {@link io.ringflow.state.inspect.CheckpointInspector} opens a verified
 * checkpoint ({@link io.ringflow.state.checkpoint.CheckpointCatalog}) and describes its operators, source positions
 * and state, decoding entries where it can. Depends on the checkpoint and snapshot formats; nothing depends on it.
 */
package io.ringflow.state.inspect;
