package io.ringflow.state.chronicle;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

class ChronicleJvmAccessTest
{
    @Test
    void theFlagsAreTheRootPomsFlags() throws IOException
    {
        final String pom = Files.readString(Path.of("..", "pom.xml"), StandardCharsets.UTF_8);
        final Matcher property = Pattern.compile("<ringflow.jvm.flags>(.*?)</ringflow.jvm.flags>", Pattern.DOTALL)
            .matcher(pom);

        assertThat(property.find()).as("ringflow.jvm.flags in the root pom").isTrue();
        assertThat(ChronicleJvmAccess.FLAGS).containsExactly(property.group(1).trim().split("\\s+"));
        final Matcher required = Pattern.compile(
            "<ringflow.jvm.required-flags>(.*?)</ringflow.jvm.required-flags>", Pattern.DOTALL).matcher(pom);
        assertThat(required.find()).as("ringflow.jvm.required-flags in the root pom").isTrue();
        assertThat(ChronicleJvmAccess.REQUIRED).containsExactly(required.group(1).trim().split("\\s+"))
            .containsExactly("--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
                "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED");
        // the launchers' set covers the required one
        assertThat(ChronicleJvmAccess.FLAGS).containsAll(ChronicleJvmAccess.REQUIRED);
    }

    @Test
    void aJvmStartedWithTheFlagsPassesTheCheck()
    {
        // surefire starts the tests with ringflow.jvm.flags
        assertThat(ChronicleJvmAccess.missing(net.openhft.chronicle.map.ChronicleMap.class.getModule())).isEmpty();
        ChronicleJvmAccess.check();
    }

    @Test
    void everyOpeningAndExportNotGrantedToAModuleIsMissingAndNothingElse()
    {
        // a JDK module that none of the flags names, and that java.base grants none of their packages
        final Optional<Module> sql = ModuleLayer.boot().findModule("java.sql");
        assumeThat(sql).isPresent();

        final List<String> missing = ChronicleJvmAccess.missing(sql.get(), ChronicleJvmAccess.FLAGS);
        assertThat(missing)
            .contains("--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED",
                "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED")
            .doesNotContain("--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED")  // exported to every module
            .allMatch(flag -> flag.startsWith("--add-opens=") || flag.startsWith("--add-exports="));
        // the check looks at the required flags only
        assertThat(ChronicleJvmAccess.missing(sql.get())).containsExactlyElementsOf(ChronicleJvmAccess.REQUIRED);
    }
}
