package io.ringflow.engine.api.sink.file;

/**
 * One part file a {@link TransactionalFileSink} pre-committed: durable under its hidden pending name, renamed to its
 * committed name when its checkpoint completes.
 *
 * @param pendingFile   the pending file's name in the output directory.
 * @param committedFile the name it gets when committed.
 * @param length        its length in bytes.
 * @param crc32c        the CRC32C of its bytes.
 */
public record FileCommittable(String pendingFile, String committedFile, long length, int crc32c)
{
}
