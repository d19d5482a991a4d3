package org.structlr.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import org.structlr.oracle.ClassOption;
import org.structlr.oracle.FunctionClass;
import org.structlr.oracle.FunctionClasses;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code structlr classes}: every registered function class and the options it declares (--unary-option/--pairwise-option). */
@Command(name = "classes", mixinStandardHelpOptions = true,
        description = "List the function classes (--unary/--pairwise) and their options (--unary-option/--pairwise-option NAME=VALUE).")
final class ClassesCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        for (FunctionClass c : FunctionClasses.all()) {
            out.println(c.name() + ": " + c.description());
            if (c.options().isEmpty()) out.println("  (no options)");
            for (ClassOption<?> o : c.options()) out.println("  " + o.helpLine());
        }
        out.flush();
        return Main.EXIT_OK;
    }
}
