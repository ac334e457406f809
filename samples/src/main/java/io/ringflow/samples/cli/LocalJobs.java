package io.ringflow.samples.cli;

import com.sun.tools.attach.VirtualMachine;
import com.sun.tools.attach.VirtualMachineDescriptor;

import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The Ringflow jobs running in the other JVMs of this machine that belong to this user, found through the JDK's
 * attach API and each JVM's local management agent (a JMX connector bound to the loopback interface, which the
 * attach API starts when the JVM has none yet). Nothing is opened to the network. A JVM that cannot be attached to
 * (another user's, or one started with attach disabled) is skipped.
 */
final class LocalJobs implements Closeable
{
    /**
     * One running job.
     *
     * @param pid        its JVM's process id.
     * @param jvm        the JVM's display name (its main class or jar and arguments).
     * @param name       its MBean's name.
     * @param connection the connection to its JVM; closed with the {@link LocalJobs} that found it.
     */
    record Job(long pid, String jvm, ObjectName name, MBeanServerConnection connection)
    {
        Object attribute(final String attribute) throws Exception
        {
            return connection.getAttribute(name, attribute);
        }

        Object invoke(final String operation) throws Exception
        {
            return connection.invoke(name, operation, new Object[0], new String[0]);
        }
    }

    private final List<JMXConnector> connectors = new ArrayList<>();
    private final List<Job> jobs = new ArrayList<>();

    /** @return every job found in the other JVMs of this user; close it to close their connections. */
    static LocalJobs find()
    {
        final LocalJobs found = new LocalJobs();
        final long self = ProcessHandle.current().pid();
        for (final VirtualMachineDescriptor descriptor : VirtualMachine.list())
        {
            final long pid;
            try
            {
                pid = Long.parseLong(descriptor.id());
            }
            catch (final NumberFormatException notAPid)
            {
                continue;
            }
            if (pid != self)
            {
                found.scan(descriptor, pid);
            }
        }
        return found;
    }

    private void scan(final VirtualMachineDescriptor descriptor, final long pid)
    {
        final String address;
        try
        {
            final VirtualMachine vm = VirtualMachine.attach(descriptor);
            try
            {
                address = vm.startLocalManagementAgent();
            }
            finally
            {
                vm.detach();
            }
        }
        catch (final Exception | LinkageError notAttachable)
        {
            return;
        }
        try
        {
            final JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL(address));
            connectors.add(connector);
            final MBeanServerConnection connection = connector.getMBeanServerConnection();
            for (final ObjectName name : connection.queryNames(new ObjectName("io.ringflow:type=Job,*"), null))
            {
                jobs.add(new Job(pid, descriptor.displayName(), name, connection));
            }
        }
        catch (final Exception unreachable)
        {
            // the JVM ended, or its agent refused us: it runs no job we can reach
        }
    }

    /** @return the jobs found, by pid then name. */
    List<Job> all()
    {
        final List<Job> sorted = new ArrayList<>(jobs);
        sorted.sort((a, b) -> a.pid() != b.pid() ? Long.compare(a.pid(), b.pid()) :
            a.name().toString().compareTo(b.name().toString()));
        return sorted;
    }

    /**
     * @param jobName the job's name.
     * @param pid     only in this JVM, or 0 for any.
     * @return the matching jobs.
     * @throws Exception when a job's name cannot be read.
     */
    List<Job> named(final String jobName, final long pid) throws Exception
    {
        final List<Job> matching = new ArrayList<>();
        for (final Job job : all())
        {
            if ((pid == 0 || job.pid() == pid) && jobName.equals(job.attribute("JobName")))
            {
                matching.add(job);
            }
        }
        return matching;
    }

    @Override
    public void close()
    {
        for (final JMXConnector connector : connectors)
        {
            try
            {
                connector.close();
            }
            catch (final IOException ignored)
            {
                // closing a connection to a JVM that may have ended: nothing to do
            }
        }
    }
}
