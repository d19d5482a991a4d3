package org.structlr.oracle.fcn;

import org.structlr.oracle.ClassOption;
import org.structlr.oracle.ClassOptions;
import org.structlr.oracle.FunctionClass;
import org.structlr.oracle.FunctionExport;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.util.ModelSerializer;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Fully convolutional networks over whole images ({@link FcnOracle}): unary scores per pixel, or
 * pairwise scores per horizontal and vertical edge computed from the pixel (unary) features. They
 * need every example to be an image (checked by {@code Training.checkApplicable}).
 */
public final class FcnClass implements FunctionClass {
    @Override public String name() { return "fcn"; }
    @Override public String description() { return "fully convolutional network over whole images (DL4J)"; }

    static final ClassOption<Integer> EPOCHS = ClassOption.integer("epochs", FcnSettings.DEFAULT_EPOCHS, 1,
            "passes over the training images per oracle fit");
    static final ClassOption<Integer> BATCH = ClassOption.integer("batch", FcnSettings.DEFAULT_BATCH, 1,
            "images of one size per mini-batch step");
    static final ClassOption<String> ARCH = ClassOption.choice("arch", "dilated", List.of("dilated", "unet"),
            "the network: dilated (3x3 convolutions of 'width' channels, one per value of 'dilations') or unet (an encoder-decoder"
                    + " with skip connections and batch normalisation, 'depth' 2x2 pools, width 'width' doubling per level)");
    static final ClassOption<Integer> WIDTH = ClassOption.integer("width", DilatedConvolutions.DEFAULT_WIDTH, 1,
            "channels of every hidden 3x3 convolution (unet: of the full-size level)");
    static final ClassOption<Integer> DEPTH = ClassOption.integer("depth", UNet.DEFAULT_DEPTH, 1,
            "unet: levels below the full size (each a 2x2 pool; images are padded to multiples of 2^depth)");
    static final ClassOption<List<Integer>> DILATIONS = ClassOption.integers("dilations",
            Arrays.stream(DilatedConvolutions.DEFAULT_DILATIONS).boxed().toList(), 1, 64,
            "dilated: one hidden 3x3 convolution per value, with that dilation (receptive field 1 + 2 * sum)");
    static final ClassOption<Double> LEARNING_RATE = ClassOption.real("lr", FcnSettings.DEFAULT_LEARNING_RATE, 0, true,
            "Adam's learning rate (the step the descent check may halve)");
    static final ClassOption<Boolean> DESCENT_CHECK = ClassOption.flag("descent-check", true,
            "keep a fit only if it lowers the problem's loss, else retry with half the step");
    static final ClassOption<Double> WEIGHT_DECAY = ClassOption.real("weight-decay", 0, 0, false,
            "decoupled weight decay per Adam step (times the step); 0 = none");
    static final ClassOption<Double> RECOVERY = ClassOption.real("recovery", FcnSettings.DEFAULT_RECOVERY, 1, false,
            "with descent-check: after a fit accepted at its first try a halved step grows by this factor, up to lr");

    /** The user's own network ({@code --unary-net FILE}); models and checkpoints record its SHA-256. */
    static final ClassOption<NetworkSource> NET = ClassOption.of("net", NetworkSource.NONE, "none, a FILE or sha256:HEX",
            "your own network instead of the built-in one: a DL4J ComputationGraph configuration (JSON) or model zip whose output"
                    + " scores every pixel (arch, width, dilations and depth then do not apply); recorded as its SHA-256", NetworkSource::parse);
    static final ClassOption<Integer> FREEZE = ClassOption.integer("freeze", 0, 0,
            "with net: the first K layers of the network (in topological order) keep their parameters");

    private static final List<ClassOption<?>> OPTIONS = List.of(EPOCHS, BATCH, ARCH, WIDTH, DILATIONS, DEPTH, LEARNING_RATE, DESCENT_CHECK,
            WEIGHT_DECAY, RECOVERY, NET, FREEZE);

    @Override public List<ClassOption<?>> options() { return OPTIONS; }

    /** The built-in network's options: with an own network ({@link #NET}) they do not apply (the file is the network). */
    private static final List<ClassOption<?>> BUILT_IN = List.of(ARCH, WIDTH, DILATIONS, DEPTH);

    @Override
    public String inapplicable(ClassOption<?> option, ClassOptions values) {
        boolean own = values.get(NET).present();
        if (own && BUILT_IN.contains(option)) return "an own network (net) replaces the built-in one that " + option.name() + " shapes";
        if (option == FREEZE && !own) return "it keeps layers of an own network fixed (net, --unary-net/--pairwise-net), and none is given";
        if (option == DEPTH && values.get(ARCH).equals("dilated")) return "arch is dilated; depth sets the levels of arch=unet";
        if (option == DILATIONS && values.get(ARCH).equals("unet")) return "arch is unet; dilations sets the convolutions of arch=dilated";
        if (option == RECOVERY && !values.get(DESCENT_CHECK)) return "descent-check is false, so no step is ever halved to grow again";
        return null;
    }

    @Override
    public Oracle create(Context c) {
        ClassOptions o = c.options();
        FcnSettings.Builder b = FcnSettings.builder(!c.unary());
        b.width(o.get(WIDTH)).dilations(o.get(DILATIONS).stream().mapToInt(Integer::intValue).toArray());
        if (o.get(ARCH).equals("unet")) b.architecture(new UNet(o.get(WIDTH), o.get(DEPTH)));
        FcnArchitecture own = ownNetwork(o);
        if (own != null) b.architecture(own);
        return new FcnOracle(b.epochs(o.get(EPOCHS)).learningRate(o.get(LEARNING_RATE)).seed(c.seed()).batch(o.get(BATCH))
                .descentCheck(o.get(DESCENT_CHECK)).weightDecay(o.get(WEIGHT_DECAY)).recovery(o.get(RECOVERY)).build());
    }

    /** The own network the options name, or null (the built-in one). */
    static OwnNetwork ownNetwork(ClassOptions o) {
        NetworkSource net = o.get(NET);
        if (!net.present()) return null;   // freeze then does not apply (inapplicable): it was refused if given
        return new OwnNetwork(net, o.get(FREEZE));
    }

    /**
     * An own network is made once here, for the data's {@code pixelFeatures} and {@code numLabels}:
     * a file that does not fit is refused before any training.
     */
    @Override
    public void checkData(ClassOptions o, int pixelFeatures, int numLabels) {
        OwnNetwork own = ownNetwork(o);
        if (own == null || !own.source().hasContent()) return;
        boolean unary = o.unary();
        own.newNetwork(pixelFeatures, unary ? numLabels : numLabels * numLabels, unary ? 1 : 2,
                new FcnArchitecture.Optimisation(0, DataType.FLOAT, new org.nd4j.linalg.learning.config.Adam(), 0));
    }

    @Override public Set<String> kinds() { return Set.of(FcnScore.KIND, FcnPairScore.KIND); }

    @Override
    public ScoreFunction load(Path dir, JsonNode meta) throws IOException {
        return FcnPairScore.KIND.equals(meta.path("kind").asText()) ? FcnPairScore.load(dir, meta) : FcnScore.load(dir, meta);
    }

    /**
     * A ComputationGraph zip (DL4J's classes only) run on a whole image, with the manifest lines that
     * say how its output channels map to pixels and edges; checked on a random image of an odd size
     * against {@link FullyConvolutionalScore#outputImage} before anything is written.
     */
    @Override
    public ObjectNode export(ScoreFunction f, ExportTarget t) throws IOException {
        if (!(f instanceof FullyConvolutionalScore fcn)) throw new IllegalArgumentException("fcn export: not an fcn function: " + f.kind());
        ComputationGraph net = fcn.plainNetwork();
        int[] m = fcn.sizeMultiple();
        // an odd size where the network takes any size; else the next multiple (the plain network does not pad)
        int d = fcn.numFeatures(), c = fcn.numClasses(), k = fcn.groups(), h = roundUp(5, m[0]), w = roundUp(7, m[1]);
        Random rng = new Random(0x5eed ^ t.name().hashCode());
        double[] v = new double[d * h * w];
        for (int i = 0; i < v.length; i++) v[i] = rng.nextDouble();
        INDArray x = Nd4j.create(v, new long[] {1, d, h, w}, DataType.DOUBLE).castTo(net.params().dataType());
        INDArray want = fcn.outputImage(x).castTo(DataType.DOUBLE), got = net.output(x)[0].castTo(DataType.DOUBLE);
        double worst = want.sub(got).amaxNumber().doubleValue() / Math.max(1, want.amaxNumber().doubleValue());
        if (!java.util.Arrays.equals(want.shape(), got.shape()) || !(worst <= FunctionExport.TOLERANCE)) {
            throw new IllegalStateException(t.name() + ": exported fcn differs from structlr's by " + worst);
        }
        String file = t.stem() + ".zip";
        ModelSerializer.writeModel(net, t.dir().resolve(file).toFile(), false);
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("file", file);
        o.put("format", "dl4j-computationgraph");
        o.put("wholeImage", true);
        o.put("features", d);
        o.put("featuresFrom", "unary");
        o.put("groups", k);
        o.put("dataType", net.params().dataType().toString());
        o.put("input", "one whole image " + (m[0] > 1 || m[1] > 1 ? "(H and W: see padding)" : "of any size") + ": INDArray [1, " + d
                + ", H, W], channel j at (r, c) = column j of the "
                + "unary feature row of pixel (r, c) (row r * W + c)" + (k == 2 ? "; the pairwise fcn reads the unary (pixel) "
                + "features, not the edge features" : ""));
        if (m[0] > 1 || m[1] > 1) {
            o.put("sizeMultiple", JsonNodeFactory.instance.arrayNode().add(m[0]).add(m[1]));
            o.put("padding", "H must be a multiple of " + m[0] + " and W of " + m[1] + ": pad the image with zeros at the bottom and"
                    + " the right (every channel 0, as structlr does) and keep the top-left H x W of the output");
        }
        o.put("output", "net.output(image)[0] = [1, " + (k * c) + ", H, W]");
        o.put("mapping", k == 1
                ? "g_unary(pixel (r, c))[y] = output[0, y, r, c]"
                : "g(edge (r, c)-(r, c+1))[y_i * L + y_j] = output[0, y_i * L + y_j, r, c] (horizontal edges); "
                + "g(edge (r, c)-(r+1, c))[y_i * L + y_j] = output[0, " + c + " + y_i * L + y_j, r, c] (vertical edges); "
                + "i is the left or upper pixel; channels 0.." + (c - 1) + " of the last column and " + c + ".." + (2 * c - 1)
                + " of the last row belong to no edge");
        return o;
    }

    private static int roundUp(int n, int multiple) {
        return (n + multiple - 1) / multiple * multiple;
    }
}
