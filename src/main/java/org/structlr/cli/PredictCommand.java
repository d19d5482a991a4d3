package org.structlr.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.structlr.data.BadInputException;
import org.structlr.data.Example;
import org.structlr.data.ExampleIO;
import org.structlr.data.NpyArray;
import org.structlr.data.Npz;
import org.structlr.model.CrfModel;
import org.structlr.model.ExampleBatch;
import org.structlr.model.Predictor;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "predict", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Label new examples with a trained model: .npz in, .npz out with 'labels' [V] and 'marginals' [V, L].")
final class PredictCommand implements Callable<Integer> {
    @Option(names = "--model", required = true, paramLabel = "MODEL", description = "A model folder written by train.")
    Path model;

    @Option(names = "--input", required = true, paramLabel = "FILE.npz|DIR", description = "One example, or a folder of them.")
    Path input;

    @Option(names = "--output", required = true, paramLabel = "FILE.npz|DIR", description = "Output file (or folder when --input is a folder).")
    Path output;

    @Mixin
    PredictionOptions prediction;

    @Mixin
    CommonOptions common;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        prediction.check();
        common.apply();
        CrfModel m = CrfModel.load(model);
        if (!Files.exists(input)) throw new BadInputException(input, "no such file or folder");
        List<Path> inputs;
        if (Files.isDirectory(input)) {
            try (Stream<Path> s = Files.list(input)) {
                inputs = s.filter(p -> p.toString().endsWith(".npz")).sorted().toList();
            }
            if (inputs.isEmpty()) throw new BadInputException(input, "folder holds no .npz files");
        } else {
            inputs = List.of(input);
        }
        CliChecks.output("--output", output, Files.isDirectory(input));
        // Read and check everything before writing anything.
        List<Example> examples = inputs.stream().map(ExampleIO::read).toList();
        for (Example e : examples) Predictor.checkCompatible(m, e);
        for (int k = 0; k < examples.size(); k++) {
            Example ex = examples.get(k);
            ExampleBatch b = new ExampleBatch(List.of(ex), m.numLabels(), m.pairTypes());
            Predictor.Prediction p = Predictor.predict(m, b, prediction.stop(b));
            Path out = Files.isDirectory(input) ? output.resolve(inputs.get(k).getFileName()) : output;
            Map<String, NpyArray> arrays = new LinkedHashMap<>();
            arrays.put("labels", NpyArray.ofInts(p.labels(), p.labels().length));
            INDArray marg = p.marginals().castTo(DataType.FLOAT);
            arrays.put("marginals", NpyArray.fromINDArray(marg));
            ex.shape().ifPresent(sh -> arrays.put("shape", NpyArray.ofInts(sh, 2)));
            Npz.write(out, arrays);
            if (!common.quiet) {
                spec.commandLine().getErr().printf("%s -> %s (%d sweeps, gap %.2e)%n", inputs.get(k), out, p.inference().iterations(), p.inference().gap());
            }
        }
        return Main.EXIT_OK;
    }
}
