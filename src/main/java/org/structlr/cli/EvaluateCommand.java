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
import org.structlr.metrics.ConfusionMatrix;
import org.structlr.metrics.Evaluation;
import org.structlr.model.CrfModel;
import org.structlr.viz.ConfusionFigure;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "evaluate", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Per-variable error, pixel accuracy, per-class IoU, mean IoU and the confusion matrix of a trained model on a data set's",
                "train, test (and val) examples; void pixels (label -1) are left out. With --output also one confusion PNG per split."})
final class EvaluateCommand implements Callable<Integer> {
    @Option(names = "--model", required = true, paramLabel = "MODEL", description = "A model folder written by train.")
    Path model;

    @Option(names = "--data", required = true, paramLabel = "DIR", description = "Data set folder with train/ and test/ .npz files.")
    Path data;

    @Option(names = "--output", paramLabel = "FILE.json",
            description = "Write the errors and metrics as JSON (with the model's settings: classes, their options, oracles), and beside it FILE-confusion-SPLIT.png for every split.")
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
        if (ds.numLabels() > m.numLabels()) {
            throw new BadInputException(data + ": has labels 0.." + (ds.numLabels() - 1) + " but the model " + model + " knows 0.." + (m.numLabels() - 1));
        }
        Map<String, Object> res = new LinkedHashMap<>();
        Map<String, Object> metrics = new LinkedHashMap<>();
        Map<String, ConfusionMatrix> confusions = new LinkedHashMap<>();
        for (String split : List.of("train", "test", "val")) {
            List<Example> ex = ds.split(split);
            if (ex.isEmpty()) continue;
            ConfusionMatrix c = Evaluation.confusion(m, ex, prediction.iterations, prediction.tolerance);
            confusions.put(split, c);
            res.put(split + "_error", c.error());
            metrics.put(split, c.toMap(m.classes()));
            spec.commandLine().getOut().printf(Locale.ROOT, "%s error %.4f (%d examples)  pixel accuracy %.4f  mean IoU %.4f%n",
                    split, c.error(), ex.size(), c.pixelAccuracy(), c.meanIou());
            spec.commandLine().getOut().flush();
        }
        res.put("classes", m.classes().toMap());
        res.put("metrics", metrics);
        // what the model was trained with: classes, their options, learning settings, the oracles' descriptions
        res.put("settings", m.settings());
        if (m.provenance().get("oracles") != null) res.put("oracles", m.provenance().get("oracles"));
        if (output != null) {
            ConfusionFigure.writeBeside(output, "evaluate", confusions, m.classes());
            AtomicFiles.write(output, out -> new com.fasterxml.jackson.databind.ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(out, res));
        }
        return Main.EXIT_OK;
    }
}
