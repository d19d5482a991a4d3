package org.structlr.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import org.structlr.data.BadInputException;
import org.structlr.oracle.ClassOptions;
import org.structlr.oracle.FunctionSpec;
import picocli.CommandLine.Option;

/**
 * {@code --unary-option NAME=VALUE} / {@code --pairwise-option NAME=VALUE} (repeatable): the options
 * a function class declares (train, demo, experiment; {@code structlr classes} lists them).
 */
final class ClassOptionsOptions {
    @Option(names = "--unary-option", paramLabel = "NAME=VALUE", mapFallbackValue = "",
            description = "An option of the unary function class (repeatable), e.g. --unary-option epochs=2;"
                    + " 'structlr classes' lists every class's options and defaults.")
    Map<String, String> unary = new LinkedHashMap<>();

    @Option(names = "--pairwise-option", paramLabel = "NAME=VALUE", mapFallbackValue = "",
            description = "An option of the pairwise function class (repeatable), as --unary-option.")
    Map<String, String> pairwise = new LinkedHashMap<>();

    @Option(names = "--unary-net", paramLabel = "FILE",
            description = "With --unary fcn: your own network instead of the built-in one, a DL4J ComputationGraph configuration (JSON)"
                    + " or model zip (e.g. an earlier export's unary.zip) with one input [B, D, H, W] (D pixel features) and an output"
                    + " of one score per label per pixel [B, L, H, W]; structlr attaches its loss (--unary-option net=FILE).")
    String unaryNet;

    @Option(names = "--pairwise-net", paramLabel = "FILE",
            description = "With --pairwise fcn: as --unary-net, output [B, 2 L L, H, W] (the joint labels of each pixel's right edge, then"
                    + " of its down edge).")
    String pairwiseNet;

    @Option(names = "--freeze", paramLabel = "K",
            description = "With --unary-net/--pairwise-net: the first K layers of the network (in topological order) keep their"
                    + " parameters (option freeze=K).")
    Integer freeze;

    /** Whether any option was given. */
    boolean any() {
        return !unary.isEmpty() || !pairwise.isEmpty() || unaryNet != null || pairwiseNet != null || freeze != null;
    }

    /** The unary options given, --unary-net and --freeze included (name to text). */
    Map<String, String> unaryGiven() {
        return given("--unary-net", unary, unaryNet);
    }

    /** The pairwise options given, --pairwise-net and --freeze included. */
    Map<String, String> pairwiseGiven() {
        return given("--pairwise-net", pairwise, pairwiseNet);
    }

    private Map<String, String> given(String netOption, Map<String, String> options, String net) {
        if (freeze != null && unaryNet == null && pairwiseNet == null) {
            throw new BadInputException("option '--freeze' needs --unary-net or --pairwise-net");
        }
        Map<String, String> all = new LinkedHashMap<>(options);
        if (net != null) {
            if (all.containsKey("net")) throw new BadInputException("option '" + netOption + "' and option net= both name a network; give one");
            all.put("net", net);
            if (freeze != null) all.put("freeze", String.valueOf(freeze));
        }
        return all;
    }

    /** The unary class {@code kind} with the given options; a bad one is a usage error naming the option. */
    FunctionSpec unary(String kind) {
        return spec(kind, true, unaryGiven(), null);
    }

    /** The pairwise class {@code kind} with the given options; a bad one is a usage error naming the option. */
    FunctionSpec pairwise(String kind) {
        return spec(kind, false, pairwiseGiven(), null);
    }

    /**
     * The unary class of {@code resumed} (a checkpoint's) with the options given on top of its values,
     * which decide whether a given option applies (depth given to resume an arch=unet run does).
     */
    FunctionSpec unary(FunctionSpec resumed) {
        return spec(resumed.name(), true, unaryGiven(), resumed);
    }

    /** As {@link #unary(FunctionSpec)} for the pairwise class. */
    FunctionSpec pairwise(FunctionSpec resumed) {
        return spec(resumed.name(), false, pairwiseGiven(), resumed);
    }

    private FunctionSpec spec(String kind, boolean unary, Map<String, String> given, FunctionSpec resumed) {
        String netOption = unary ? "--unary-net" : "--pairwise-net", optionOption = unary ? "--unary-option" : "--pairwise-option";
        boolean netGiven = (unary ? unaryNet : pairwiseNet) != null;
        if (netGiven && !kind.equals("fcn")) {
            throw new BadInputException("option '" + netOption + "' needs --" + (unary ? "unary" : "pairwise") + " fcn, not " + kind);
        }
        try {
            return resumed == null ? FunctionSpec.of(kind, unary, given) : FunctionSpec.of(kind, unary, given, resumed.options().texts());
        } catch (ClassOptions.Refused e) {
            String m = e.getMessage();
            // a file's own problem reads "FILE: problem" on its own line
            if (netGiven && e.option().equals("net") && m.startsWith("fcn option 'net': ")) throw new BadInputException(m.substring("fcn option 'net': ".length()));
            // the flag that gave the option: --unary-net (net), --freeze (freeze beside a network file), else --unary-option
            String flag = netGiven && e.option().equals("net") ? netOption : netGiven && freeze != null && e.option().equals("freeze") ? "--freeze" : optionOption;
            throw new BadInputException("option '" + flag + "': " + m);
        }
    }
}
