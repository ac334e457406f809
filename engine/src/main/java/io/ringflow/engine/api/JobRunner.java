package io.ringflow.engine.api;

import io.ringflow.engine.graph.StreamGraph;
import io.ringflow.state.codec.CodecRegistry;

/**
 * Runs a job graph: what {@link JobEnvironment#execute} hands the graph to. Ringflow's own runtime is one runner (the
 * engine jar registers it as a {@link java.util.ServiceLoader service}); another engine (a Flink runner) can be
 * another, given to {@link JobEnvironment#create(JobConfig, JobRunner)}. The API knows runners only through this
 * interface.
 *
 * <p>Thread contract: {@link #run} is called on the submitting thread, once per execution; implementations are
 * thread-safe.
 */
public interface JobRunner
{
    /**
     * Checks the graph, resolves its defaults, deploys it and starts it; returns at once.
     *
     * @param jobName the job's name.
     * @param graph   the logical graph; the runner may fill in defaults (parallelism, uids, partitioning), and it must
     *                not change afterwards.
     * @param config  the job's settings.
     * @param codecs  codecs for the records that cross channels and for state.
     * @return the running job.
     * @throws InvalidJobException when the job cannot run (naming the operator at fault); nothing has started then.
     */
    JobHandle run(String jobName, StreamGraph graph, JobConfig config, CodecRegistry codecs);
}
