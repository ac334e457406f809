package io.ringflow.connectors.kafka.local;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;

/**
 * A single-node Kafka broker (KRaft, broker and controller in one) inside this JVM, for tests, the sample and
 * benchmarks: listeners on 127.0.0.1 only, internal topics with one replica and one partition, data in a folder of
 * its own that {@link #close} deletes. Starts in a few seconds. Needs {@code kafka_2.13} and {@code kafka-server} on
 * the classpath (optional dependencies of the connector).
 *
 * <p>Thread contract: start and close from one thread; the admin helpers are thread-safe.
 */
public final class LocalKafkaBroker implements AutoCloseable
{
    private final Path directory;
    private final boolean ownsDirectory;
    private final KafkaRaftServer server;
    private final String bootstrapServers;
    private final Admin admin;

    private LocalKafkaBroker(final Path directory, final boolean ownsDirectory, final int brokerPort,
        final int controllerPort) throws IOException
    {
        this.directory = directory;
        this.ownsDirectory = ownsDirectory;
        final Properties config = new Properties();
        config.put("process.roles", "broker,controller");
        config.put("node.id", "1");
        config.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        config.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
        config.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
        config.put("controller.listener.names", "CONTROLLER");
        config.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        config.put("inter.broker.listener.name", "PLAINTEXT");
        config.put("log.dirs", directory.resolve("data").toString());
        config.put("offsets.topic.replication.factor", "1");
        config.put("offsets.topic.num.partitions", "1");
        config.put("transaction.state.log.replication.factor", "1");
        config.put("transaction.state.log.min.isr", "1");
        config.put("transaction.state.log.num.partitions", "1");
        config.put("share.coordinator.state.topic.replication.factor", "1");
        config.put("share.coordinator.state.topic.min.isr", "1");
        config.put("group.initial.rebalance.delay.ms", "0");
        config.put("auto.create.topics.enable", "false");
        // a lingering transaction of a killed producer is aborted by the next one with its id; this bounds the rest
        config.put("transaction.max.timeout.ms", String.valueOf(TimeUnit.MINUTES.toMillis(15)));
        final Path file = directory.resolve("server.properties");
        try (Writer out = Files.newBufferedWriter(file))
        {
            config.store(out, "written by Ringflow's LocalKafkaBroker");
        }
        final ByteArrayOutputStream formatLog = new ByteArrayOutputStream();
        // execute, not main: main exits the JVM
        final int status = StorageTool.execute(new String[] {
            "format", "--cluster-id", Uuid.randomUuid().toString(), "--config", file.toString()},
            new PrintStream(formatLog, true, StandardCharsets.UTF_8));
        if (status != 0)
        {
            throw new IllegalStateException("formatting the local Kafka broker's storage in " + directory +
                " failed (" + status + "): " + formatLog.toString(StandardCharsets.UTF_8));
        }
        server = new KafkaRaftServer(new KafkaConfig(config, false), Time.SYSTEM);
        server.startup();
        bootstrapServers = "127.0.0.1:" + brokerPort;
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
    }

    /**
     * Starts a broker with its data in a new temporary folder, deleted by {@link #close}.
     *
     * @return the running broker.
     * @throws IOException when its folder cannot be written.
     */
    public static LocalKafkaBroker start() throws IOException
    {
        return new LocalKafkaBroker(Files.createTempDirectory("ringflow-kafka-"), true, freePort(), freePort());
    }

    /**
     * Starts a broker with its data in {@code directory} (created; kept after {@link #close}).
     *
     * @param directory where the broker keeps its configuration and data; must be empty or absent.
     * @return the running broker.
     * @throws IOException when the folder cannot be written.
     */
    public static LocalKafkaBroker start(final Path directory) throws IOException
    {
        Files.createDirectories(directory);
        try (var entries = Files.list(directory))
        {
            if (entries.findAny().isPresent())
            {
                throw new IllegalArgumentException("the local Kafka broker's folder " + directory + " is not empty");
            }
        }
        return new LocalKafkaBroker(directory, false, freePort(), freePort());
    }

    /** @return the {@code bootstrap.servers} of this broker. */
    public String bootstrapServers()
    {
        return bootstrapServers;
    }

    /**
     * Creates a topic with one replica.
     *
     * @param name       the topic.
     * @param partitions how many partitions.
     */
    public void createTopic(final String name, final int partitions)
    {
        await(admin.createTopics(List.of(new NewTopic(name, partitions, (short)1))).all(), "create topic " + name);
    }

    /**
     * Adds partitions to a topic.
     *
     * @param name            the topic.
     * @param totalPartitions how many it has afterwards.
     */
    public void growTopic(final String name, final int totalPartitions)
    {
        await(admin.createPartitions(Map.of(name, NewPartitions.increaseTo(totalPartitions))).all(),
            "grow topic " + name);
    }

    /** @return an admin client of this broker, closed with it. */
    public Admin admin()
    {
        return admin;
    }

    @Override
    public void close()
    {
        admin.close();
        server.shutdown();
        server.awaitShutdown();
        if (ownsDirectory)
        {
            deleteTree(directory);
        }
    }

    private static void await(final org.apache.kafka.common.KafkaFuture<Void> future, final String what)
    {
        try
        {
            future.get(60, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(what + ": interrupted", ex);
        }
        catch (final ExecutionException | java.util.concurrent.TimeoutException ex)
        {
            throw new IllegalStateException(what + " failed: " + ex.getMessage(), ex);
        }
    }

    private static int freePort() throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
    }

    private static void deleteTree(final Path root)
    {
        try
        {
            Files.walkFileTree(root, new SimpleFileVisitor<>()
            {
                @Override
                public FileVisitResult visitFile(final Path file, final BasicFileAttributes attributes)
                    throws IOException
                {
                    Files.delete(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(final Path dir, final IOException failure) throws IOException
                {
                    Files.delete(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot delete the local Kafka broker's folder " + root, ex);
        }
    }
}
