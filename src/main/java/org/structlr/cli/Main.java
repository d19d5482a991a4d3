package org.structlr.cli;

import org.structlr.data.BadInputException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code structlr} command line. Exit codes: 0 success, 2 bad usage or bad input, 1 failure;
 * whatever a command throws, {@link Error}s included, is mapped by {@link Failures}.
 */
@Command(name = "structlr", mixinStandardHelpOptions = true, version = "structlr 0.1.0",
        description = "Structured learning via logistic regression: CRFs with any logistic-loss function class.",
        footer = {"", "Exit codes: 0 success, 2 bad usage or bad input (one line naming the file and the problem), 1 failure"
                + " (one line with the short cause chain; --stacktrace prints the whole trace).",
                "Run 'structlr COMMAND --help' for a command's options and defaults."},
        subcommands = {TrainCommand.class, EvaluateCommand.class, PredictCommand.class, DemoCommand.class, ExperimentCommand.class,
                ExportCommand.class, ScenesCommand.class, ImagesDataCommand.class, HorsesDataCommand.class, InferCommand.class, BenchCommand.class,
                ClassesCommand.class, ServeCommand.class})
public final class Main implements Runnable {
    public static final int EXIT_OK = 0;
    public static final int EXIT_FAILURE = 1;
    public static final int EXIT_USAGE = 2;

    @picocli.CommandLine.Option(names = "--stacktrace", scope = picocli.CommandLine.ScopeType.INHERIT,
            description = "On a failure, print the whole stack trace after the one-line message.")
    boolean stacktrace;

    @Override
    public void run() {
        CommandLine.usage(this, System.out);
    }

    /** Runs a command line and returns its exit code (used by tests, which must not call System.exit). */
    public static int execute(String... args) {
        return execute(null, null, args);
    }

    /**
     * As {@link #execute(String...)}, with standard output and error sent to {@code out} and
     * {@code err} (null: System.out / System.err), so that tests can read what a command printed.
     */
    public static int execute(java.io.PrintWriter out, java.io.PrintWriter err, String... args) {
        CommandLine cl = new CommandLine(new Main());
        cl.registerConverter(java.nio.file.Path.class, new PathConverter.Local()); // options without their own converter
        if (out != null) cl.setOut(out);
        if (err != null) cl.setErr(err);
        boolean stacktrace = java.util.Arrays.asList(args).contains("--stacktrace");
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> Failures.report(ex, cmd.getErr(), stacktrace));
        cl.setParameterExceptionHandler((ex, a) -> {
            ex.getCommandLine().getErr().println("error: " + ex.getMessage());
            ex.getCommandLine().getErr().println("try: " + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help");
            return EXIT_USAGE;
        });
        String unknown = unknownCommand(cl, args);
        if (unknown != null) {
            cl.getErr().println("error: '" + unknown + "' is not a structlr command; the commands are: "
                    + String.join(", ", cl.getSubcommands().keySet()));
            cl.getErr().println("try: structlr --help");
            cl.getErr().flush();
            return EXIT_USAGE;
        }
        Staging.begin();                          // remote paths (-Pspark build): staged per command
        int code = EXIT_FAILURE;
        try {
            code = cl.execute(args);
        } catch (Throwable t) {                   // Errors (OutOfMemoryError, StackOverflowError, ...) pass picocli's handler
            code = Failures.report(t, cl.getErr(), stacktrace);
        } finally {
            String failed = Staging.finish(code == EXIT_OK);
            if (failed != null) {
                cl.getErr().println("failed: " + failed);
                code = EXIT_FAILURE;
            }
        }
        return code;
    }

    /**
     * The first word of the line when it names no command, else null. Checked before picocli parses:
     * picocli lets a help option win over an unmatched word, so {@code structlr foo --help} printed the
     * top-level help and exited 0. The top level has only flags (no option takes a value), so the
     * first argument not starting with '-' is the command.
     */
    static String unknownCommand(CommandLine cl, String[] args) {
        for (String a : args) {
            if (a.startsWith("-")) continue;
            return cl.getSubcommands().containsKey(a) ? null : a;
        }
        return null;
    }

    public static void main(String[] args) {
        skipPhysicalMemoryChecks();
        System.exit(execute(args));
    }

    /**
     * Turns off JavaCPP's resident-memory check on every native allocation, unless the user set
     * {@code org.bytedeco.javacpp.maxPhysicalBytes} (e.g. {@code -Dorg.bytedeco.javacpp.maxPhysicalBytes=8G}).
     * ND4J allocates a few native buffers per op; with the check on, each asks the OS for the
     * process's resident size ({@code Pointer.physicalBytesInaccurate}), measured here as 18% of
     * the MLP oracle's fit time on the horses. The check only decides when to call System.gc()
     * beyond the limit on tracked native bytes ({@code maxBytes}), which stays on. It must be set
     * before the first JavaCPP class is loaded, hence here and not in a command.
     */
    static void skipPhysicalMemoryChecks() {
        if (System.getProperty("org.bytedeco.javacpp.maxPhysicalBytes") == null
                && System.getProperty("org.bytedeco.javacpp.maxphysicalbytes") == null) {
            System.setProperty("org.bytedeco.javacpp.maxPhysicalBytes", "0");
        }
    }
}
