package org.structlr.data;

import java.awt.image.BufferedImage;
import java.awt.image.DataBufferByte;
import java.awt.image.IndexColorModel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import javax.imageio.ImageIO;

/**
 * A generated multi-class segmentation set in the layout of Pascal VOC 2012, the example the
 * guide to your own images trains on (docs/guide/your-own-images.md): textured shapes on a textured background, where colour alone cannot tell the
 * classes apart (two pairs of classes share their mean colour) and texture can, with void
 * boundaries and images of varying sizes. Deterministic for a seed.
 *
 * <p><b>Classes</b> (mean colour; texture): 0 background (greenish grey; smooth low-frequency
 * shading, +-30), 1 stripes (brown; diagonal stripes of period 6, +-28), 2 dots (brown; bright
 * 2-pixel dots every 5 pixels), 3 checks (blue-grey; a checkerboard of 4-pixel squares, +-24),
 * 4 plain (blue-grey; smooth shading like the background's, +-24). Every pixel gets Gaussian noise
 * (sd {@value #NOISE} in 8-bit units, about as strong as the textures) and every image a brightness
 * offset (uniform +-25): single pixels say little, neighbourhoods and neighbours' labels a lot.
 *
 * <p><b>Each image</b> is H x W with H and W uniform in [{@code minSide}, {@code maxSide}], with 2 to
 * 5 shapes (ellipses, rectangles, triangles; random class 1..4, position and size from a sixth to
 * a half of the image) painted over the background in order (later shapes occlude earlier ones).
 * <b>Void</b>: every pixel with a 4-neighbour of another class gets the void value 255, a band of
 * two pixels along every boundary (Pascal VOC marks its object outlines the same way).
 *
 * <p><b>Files</b> ({@link #write}): {@code images/sceneNNN.png} (RGB), {@code masks/sceneNNN.png}
 * (8-bit palette PNG with VOC's palette: the pixel values are the class indices and 255 for void,
 * as VOC's SegmentationClass files), {@code classes.json} (the class table) and
 * {@code lists/train.txt}, {@code val.txt}, {@code test.txt} (60%, 20%, 20% of the images, VOC's
 * ImageSets convention). Randomness: one {@link SplittableRandom} per image, split from the seed
 * in image order.
 *
 * <p><b>Partial labels</b> ({@code trainVoid} F > 0): random labelled pixels of the training masks
 * become void, each with the probability that brings the image's void fraction to F (images
 * already at F or above keep their masks); val and test masks keep every label. The images and the
 * other masks are those of F = 0 (the hiding draws from its own stream, seeded by the seed), so a
 * run on them compares partial with full labels on the same pictures.
 */
public final class SceneGenerator {
    public static final List<String> CLASS_NAMES = List.of("background", "stripes", "dots", "checks", "plain");
    /** The mask value of void pixels. */
    public static final int VOID = 255;

    /** Standard deviation of the pixel noise, 8-bit units. */
    static final double NOISE = 28;

    private static final int[][] MEAN = {{110, 130, 90}, {150, 110, 80}, {150, 110, 80}, {90, 110, 150}, {90, 110, 150}};

    private final int minSide;
    private final int maxSide;

    /** Images of 48 to 72 pixels a side. */
    public SceneGenerator() {
        this(48, 72);
    }

    public SceneGenerator(int minSide, int maxSide) {
        if (minSide < 8 || maxSide < minSide) throw new IllegalArgumentException("sides must satisfy 8 <= min <= max, got " + minSide + ", " + maxSide);
        this.minSide = minSide;
        this.maxSide = maxSide;
    }

    /** One generated scene: RGB pixel-major [H * W * 3] bytes (0..255) and mask values [H * W] (class or {@value #VOID}). */
    public record Scene(int height, int width, int[] rgb, int[] mask) {}

    /** The scenes 0..count-1 of {@code seed}. */
    public List<Scene> generate(int count, long seed) {
        SplittableRandom root = new SplittableRandom(seed);
        List<Scene> out = new ArrayList<>();
        for (int k = 0; k < count; k++) out.add(scene(root.split()));
        return out;
    }

    Scene scene(SplittableRandom rnd) {
        int h = minSide + rnd.nextInt(maxSide - minSide + 1), w = minSide + rnd.nextInt(maxSide - minSide + 1);
        int[] cls = new int[h * w];
        int shapes = 2 + rnd.nextInt(4);
        for (int s = 0; s < shapes; s++) {
            int c = 1 + rnd.nextInt(CLASS_NAMES.size() - 1), kind = rnd.nextInt(3);
            double cy = rnd.nextDouble() * h, cx = rnd.nextDouble() * w;
            double ry = (1 / 12.0 + rnd.nextDouble() / 6) * h, rx = (1 / 12.0 + rnd.nextDouble() / 6) * w;
            double tilt = rnd.nextDouble() * Math.PI;
            for (int y = 0; y < h; y++) {
                for (int x = 0; x < w; x++) {
                    double dy = y + 0.5 - cy, dx = x + 0.5 - cx;
                    double u = (dx * Math.cos(tilt) + dy * Math.sin(tilt)) / rx, v = (-dx * Math.sin(tilt) + dy * Math.cos(tilt)) / ry;
                    boolean in = switch (kind) {
                        case 0 -> u * u + v * v <= 1;                              // ellipse
                        case 1 -> Math.abs(u) <= 1 && Math.abs(v) <= 1;            // rectangle
                        default -> v <= 1 && v >= 2 * Math.abs(u) - 1;             // triangle
                    };
                    if (in) cls[y * w + x] = c;
                }
            }
        }
        int[] mask = cls.clone();
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                int c = cls[y * w + x];
                boolean edge = (x > 0 && cls[y * w + x - 1] != c) || (x + 1 < w && cls[y * w + x + 1] != c)
                        || (y > 0 && cls[(y - 1) * w + x] != c) || (y + 1 < h && cls[(y + 1) * w + x] != c);
                if (edge) mask[y * w + x] = VOID;
            }
        }
        double phaseA = rnd.nextDouble() * 2 * Math.PI, phaseB = rnd.nextDouble() * 2 * Math.PI, bright = rnd.nextDouble() * 50 - 25;
        int ox = rnd.nextInt(12), oy = rnd.nextInt(12);
        int[] rgb = new int[h * w * 3];
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                int c = cls[y * w + x];
                double t = texture(c, x + ox, y + oy, h, w, phaseA, phaseB);
                for (int ch = 0; ch < 3; ch++) {
                    double v = MEAN[c][ch] + t + bright + NOISE * gaussian(rnd);
                    rgb[3 * (y * w + x) + ch] = (int) Math.max(0, Math.min(255, Math.round(v)));
                }
            }
        }
        return new Scene(h, w, rgb, mask);
    }

    /** The texture of class c at (x, y), added to every channel. */
    private static double texture(int c, int x, int y, int h, int w, double phaseA, double phaseB) {
        double shade = Math.sin(2 * Math.PI * x / w + phaseA) * Math.cos(2 * Math.PI * y / h + phaseB);
        return switch (c) {
            case 0 -> 30 * shade;
            case 1 -> 28 * Math.sin(2 * Math.PI * (x + y) / 6.0);
            case 2 -> (x % 5 < 2 && y % 5 < 2) ? 32 : -8;
            case 3 -> ((x / 4 + y / 4) % 2 == 0) ? 24 : -24;
            default -> 24 * shade;
        };
    }

    private static double gaussian(SplittableRandom rnd) {
        // Box-Muller from two uniforms in (0, 1]
        double u = 1 - rnd.nextDouble(), v = rnd.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    }

    /** The class table of the scenes: names, VOC palette colours, void 255. */
    public static ClassTable classes() {
        List<ClassTable.LabelClass> cs = new ArrayList<>();
        for (int k = 0; k < CLASS_NAMES.size(); k++) cs.add(new ClassTable.LabelClass(k, CLASS_NAMES.get(k), ClassTable.vocColor(k), List.of()));
        return new ClassTable(cs, ClassTable.DEFAULT_VOID_COLOR, List.of(VOID));
    }

    /**
     * Writes {@code count} scenes of {@code seed} into the folder {@code dir} (see the class
     * comment); existing files of the same names are replaced.
     */
    public void write(Path dir, int count, long seed) throws IOException {
        write(dir, count, seed, 0);
    }

    /**
     * As {@link #write(Path, int, long)} with a fraction {@code trainVoid} in [0, 1) of every
     * training mask void (see the class comment); returns the void fraction of the training masks.
     */
    public double write(Path dir, int count, long seed, double trainVoid) throws IOException {
        if (count < 3) throw new IllegalArgumentException("at least 3 scenes (train, val, test), got " + count);
        if (!(trainVoid >= 0 && trainVoid < 1)) throw new IllegalArgumentException("the training void fraction must be in [0, 1), got " + trainVoid);
        SplittableRandom hiding = new SplittableRandom(seed ^ 0x5ca1ab1e0ddba11L);
        long trainPixels = 0, trainVoidPixels = 0;
        Files.createDirectories(dir.resolve("images"));
        Files.createDirectories(dir.resolve("masks"));
        Files.createDirectories(dir.resolve("lists"));
        List<Scene> scenes = generate(count, seed);
        IndexColorModel palette = vocPalette();
        StringBuilder train = new StringBuilder(), val = new StringBuilder(), test = new StringBuilder();
        int nTrain = (int) Math.round(0.6 * count), nVal = Math.max(1, (int) Math.round(0.2 * count));
        for (int k = 0; k < scenes.size(); k++) {
            Scene s = scenes.get(k);
            String name = String.format("scene%03d", k);
            BufferedImage img = new BufferedImage(s.width(), s.height(), BufferedImage.TYPE_3BYTE_BGR);
            byte[] px = ((DataBufferByte) img.getRaster().getDataBuffer()).getData();
            for (int i = 0; i < s.height() * s.width(); i++) {
                px[3 * i] = (byte) s.rgb()[3 * i + 2];
                px[3 * i + 1] = (byte) s.rgb()[3 * i + 1];
                px[3 * i + 2] = (byte) s.rgb()[3 * i];
            }
            writePng(img, dir.resolve("images").resolve(name + ".png"));
            BufferedImage m = new BufferedImage(s.width(), s.height(), BufferedImage.TYPE_BYTE_INDEXED, palette);
            byte[] mp = ((DataBufferByte) m.getRaster().getDataBuffer()).getData();
            int[] mask = k < nTrain && trainVoid > 0 ? hide(s.mask(), trainVoid, hiding) : s.mask();
            if (k < nTrain) {
                trainPixels += mask.length;
                for (int v : mask) if (v == VOID) trainVoidPixels++;
            }
            for (int i = 0; i < mp.length; i++) mp[i] = (byte) mask[i];
            writePng(m, dir.resolve("masks").resolve(name + ".png"));
            (k < nTrain ? train : k < nTrain + nVal ? val : test).append(name).append('\n');
        }
        AtomicFiles.writeString(dir.resolve("lists").resolve("train.txt"), train.toString());
        AtomicFiles.writeString(dir.resolve("lists").resolve("val.txt"), val.toString());
        AtomicFiles.writeString(dir.resolve("lists").resolve("test.txt"), test.toString());
        String json = new com.fasterxml.jackson.databind.ObjectMapper().writerWithDefaultPrettyPrinter()
                .writeValueAsString(classes().toMap());
        AtomicFiles.writeString(dir.resolve("classes.json"), json + "\n");
        return trainPixels == 0 ? 0 : (double) trainVoidPixels / trainPixels;
    }

    /** A copy of {@code mask} with labelled pixels made void, each with the probability that brings the void fraction to {@code f}. */
    static int[] hide(int[] mask, double f, SplittableRandom rnd) {
        int voids = 0;
        for (int v : mask) if (v == VOID) voids++;
        int labelled = mask.length - voids;
        double p = labelled == 0 ? 0 : Math.max(0, (f * mask.length - voids) / labelled);
        int[] out = mask.clone();
        for (int i = 0; i < out.length; i++) if (out[i] != VOID && rnd.nextDouble() < p) out[i] = VOID;
        return out;
    }

    /** Pascal VOC's 256-colour palette (index 255: the void colour). */
    static IndexColorModel vocPalette() {
        byte[] r = new byte[256], g = new byte[256], b = new byte[256];
        for (int k = 0; k < 256; k++) {
            int c = ClassTable.vocColor(k);
            r[k] = (byte) (c >> 16);
            g[k] = (byte) (c >> 8);
            b[k] = (byte) c;
        }
        return new IndexColorModel(8, 256, r, g, b);
    }

    private static void writePng(BufferedImage img, Path file) throws IOException {
        AtomicFiles.write(file, out -> {
            if (!ImageIO.write(img, "png", out)) throw new IOException("no PNG writer in this Java runtime");
        });
    }
}
