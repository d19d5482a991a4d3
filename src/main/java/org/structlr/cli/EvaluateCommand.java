package org.structlr.cli;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.structlr.data.AtomicFiles;
import org.structlr.data.BadInputException;
import org.structlr.data.Dataset;
import org.structlr.data.Example;
import org.structlr.model.CrfModel;
import org.structlr.model.ExampleBatch;
import org.structlr.model.Predictor;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "evaluate", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Per-variable error of a trained model on a data set's train and test examples.")
final class EvaluateCommand implements Callable<Integer> {
    @Option(names = "--model", required = true, paramLabel = "MODEL", description = "A model folder written by train.")
    Path model;

    @Option(names = "--data", required = true, paramLabel = "DIR", description = "Data set folder with train/ and test/ .npz files.")
    Path data;

    @Option(names = "--output", paramLabel = "FILE.json", description = "Write the errors as JSON.")
    Path output;

    @Mixin
    PredictionOptions prediction;

    @Mixin
    CommonOptions common;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        CliChecks.output("--output", output, false);
        prediction.check();
        common.apply();
        CrfModel m = CrfModel.load(model);
        Dataset ds = Dataset.load(data);
        Map<String, Object> res = new LinkedHashMap<>();
        for (String split : List.of("train", "test")) {
            List<Example> ex = ds.split(split);
            if (ex.isEmpty()) continue;
            double err = error(m, ex, prediction);
            res.put(split + "_error", err);
            spec.commandLine().getOut().printf(Locale.ROOT, "%s error %.4f (%d examples)%n", split, err, ex.size());
            spec.commandLine().getOut().flush();
        }
        if (output != null) {
            AtomicFiles.write(output, out -> new com.fasterxml.jackson.databind.ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(out, res));
        }
        return Main.EXIT_OK;
    }

    static double error(CrfModel m, List<Example> examples, PredictionOptions prediction) {
        for (Example e : examples) {
            if (!e.hasLabels()) throw new BadInputException(e.name() + ": has no labels to evaluate against");
            Predictor.checkCompatible(m, e);
        }
        ExampleBatch b = new ExampleBatch(examples, m.numLabels(), m.pairTypes());
        Predictor.Prediction p = Predictor.predict(m, b, prediction.stop(b));
        return org.structlr.model.Potentials.error(b, p.labels());
    }
}
