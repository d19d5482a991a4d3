package org.structlr.serve;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import javax.imageio.ImageIO;
import javax.imageio.ImageReader;
import javax.imageio.stream.ImageInputStream;
import javax.imageio.stream.MemoryCacheImageInputStream;
import org.nd4j.linalg.api.buffer.DataType;
import org.structlr.data.BadInputException;
import org.structlr.data.Example;
import org.structlr.data.ExampleIO;
import org.structlr.data.NpyArray;
import org.structlr.data.Npz;
import org.structlr.features.ImageDecoder;
import org.structlr.model.Predictor;

/**
 * Request bodies to examples and predictions to answer bodies, through the project's own readers
 * and writers, so that a request is checked exactly as the CLI checks a file and its errors read
 * the same ("request body: array 'unary' ..." where the CLI says "FILE: array 'unary' ...").
 */
final class Requests {
    static final String NPZ = "application/x-npz", JSON = "application/json", PNG = "image/png";
    static final ObjectMapper MAPPER = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);
    /** How the request body is named in errors (where the CLI names the file). */
    static final String BODY = "request body";

    private final Path scratch;

    /** {@code scratch}: a private folder for the .npz bodies and answers (the .npz reader and writer work on files). */
    Requests(Path scratch) {
        this.scratch = scratch;
    }

    // ------------------------------------------------------------------ /v1/predict

    /** The body's kind from its Content-Type, or from its first bytes when none is given. */
    static String predictKind(String contentType, byte[] body) {
        String t = mediaType(contentType);
        // no type, a generic one, or curl's default for --data-binary: told by the first bytes
        if (t == null || t.equals("application/octet-stream") || t.equals("application/x-www-form-urlencoded")) {
            if (body.length >= 4 && body[0] == 'P' && body[1] == 'K') return NPZ;
            int k = 0;
            while (k < body.length && Character.isWhitespace(body[k])) k++;
            if (k < body.length && (body[k] == '{')) return JSON;
            throw new ServeException(415, "wrong type: /v1/predict takes an .npz example (" + NPZ + ") or JSON (" + JSON
                    + "); the body is neither" + (t == null ? " and has no Content-Type" : ""));
        }
        if (t.equals(NPZ) || t.equals("application/zip")) return NPZ;
        if (t.equals(JSON)) return JSON;
        throw new ServeException(415, "wrong type: /v1/predict takes " + NPZ + " or " + JSON + ", got " + t
                + (t.startsWith("image/") ? "; images go to /v1/segment" : ""));
    }

    /** An .npz body through {@link ExampleIO#read}: the CLI's reader, limits and messages. */
    Example npzExample(byte[] body) {
        Path f = null;
        try {
            f = Files.createTempFile(scratch, "request-", ".npz");
            Files.write(f, body);
            return ExampleIO.read(f);
        } catch (BadInputException e) {
            throw new BadInputException(renamed(e.getMessage(), f));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot stage the request body: " + e.getMessage(), e);
        } finally {
            delete(f);
        }
    }

    /** A JSON example: the .npz arrays' names and shapes as nested arrays. */
    record JsonExample(float[][] unary, int[][] edges, float[][] pairwise, int[] shape, @JsonProperty("edge_type") int[] edgeType,
                       @JsonProperty("num_labels") Integer numLabels, int[] labels) {}

    static Example jsonExample(byte[] body) {
        JsonExample j;
        try {
            j = MAPPER.readValue(body, JsonExample.class);
        } catch (JsonProcessingException e) {
            throw new BadInputException(BODY + ": not a JSON example {\"unary\": [[...]], \"edges\": [[i, j], ...], \"pairwise\": [[...]]}: "
                    + e.getOriginalMessage());
        } catch (IOException e) {
            throw new BadInputException(BODY + ": unreadable JSON: " + e.getMessage());
        }
        if (j == null || j.unary() == null) throw new BadInputException(BODY + ": missing array 'unary'");
        if (j.edges() == null) throw new BadInputException(BODY + ": missing array 'edges' (an empty list [] for no edges)");
        if (j.pairwise() == null) throw new BadInputException(BODY + ": missing array 'pairwise' (an empty list [] for no edges)");
        int du = width("unary", j.unary(), -1);
        int dp = j.pairwise().length == 0 ? 1 : width("pairwise", j.pairwise(), -1);
        float[] u = flat(j.unary(), du), p = flat(j.pairwise(), dp);
        int[] edges = new int[2 * j.edges().length];
        for (int e = 0; e < j.edges().length; e++) {
            int[] ij = j.edges()[e];
            if (ij == null || ij.length != 2) throw new BadInputException(BODY + ": array 'edges' row " + e + " is not a pair [i, j] (shape mismatch)");
            edges[2 * e] = ij[0];
            edges[2 * e + 1] = ij[1];
        }
        Example.Builder b = Example.builder(u, du, edges, p, dp).source(Path.of(BODY));
        if (j.shape() != null) {
            if (j.shape().length != 2) throw new BadInputException(BODY + ": array 'shape' must be [H, W]");
            b.shape(j.shape()[0], j.shape()[1]);
        }
        if (j.edgeType() != null) b.edgeType(j.edgeType());
        if (j.numLabels() != null) b.numLabels(j.numLabels());
        if (j.labels() != null) b.labels(j.labels());
        return b.build();
    }

    private static int width(String name, float[][] rows, int want) {
        if (rows.length == 0) return Math.max(want, 1);
        for (int r = 0; r < rows.length; r++) {
            if (rows[r] == null) throw new BadInputException(BODY + ": array '" + name + "' row " + r + " is null");
            if (rows[r].length != rows[0].length) {
                throw new BadInputException(BODY + ": array '" + name + "' row " + r + " has " + rows[r].length + " values, row 0 has "
                        + rows[0].length + " (shape mismatch)");
            }
        }
        return rows[0].length;
    }

    private static float[] flat(float[][] rows, int d) {
        float[] out = new float[rows.length * d];
        for (int r = 0; r < rows.length; r++) System.arraycopy(rows[r], 0, out, r * d, rows[r].length);
        return out;
    }

    /** The predict answer: JSON, or an .npz with the arrays {@code predict} writes ('labels', 'marginals' when asked, 'shape'). */
    byte[] predictAnswer(Predictor.Prediction p, Example ex, boolean marginals, boolean npz, int generation) {
        if (npz) {
            Map<String, NpyArray> arrays = new LinkedHashMap<>();
            arrays.put("labels", NpyArray.ofInts(p.labels(), p.labels().length));
            if (marginals) arrays.put("marginals", NpyArray.fromINDArray(p.marginals().castTo(DataType.FLOAT)));
            ex.shape().ifPresent(sh -> arrays.put("shape", NpyArray.ofInts(sh, 2)));
            return npzBytes(arrays);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("labels", p.labels());
        if (marginals) m.put("marginals", p.marginals().castTo(DataType.FLOAT).toFloatMatrix());
        ex.shape().ifPresent(sh -> m.put("shape", sh));
        inference(m, p, generation);
        return json(m);
    }

    static void inference(Map<String, Object> m, Predictor.Prediction p, int generation) {
        m.put("sweeps", p.inference().iterations());
        m.put("gap", p.inference().gap());
        m.put("converged", p.inference().converged());
        m.put("model_generation", generation);
    }

    private byte[] npzBytes(Map<String, NpyArray> arrays) {
        Path f = null;
        try {
            f = scratch.resolve("answer-" + Thread.currentThread().getId() + "-" + System.nanoTime() + ".npz");
            Npz.write(f, arrays);
            return Files.readAllBytes(f);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the .npz answer: " + e.getMessage(), e);
        } finally {
            delete(f);
        }
    }

    // ------------------------------------------------------------------ /v1/segment

    /** A PNG or JPEG body (told by its first bytes, whatever its Content-Type says) within the pixel limit; else 415 or 413. */
    static void checkImage(String contentType, byte[] body, long maxPixels) {
        String t = mediaType(contentType);
        if (t != null && !t.startsWith("image/") && !t.equals("application/octet-stream") && !t.equals("application/x-www-form-urlencoded")) {
            throw new ServeException(415, "wrong type: /v1/segment takes a PNG or JPEG image, got " + t
                    + (t.equals(NPZ) || t.equals(JSON) ? "; examples go to /v1/predict" : ""));
        }
        ImageDecoder.Format f = ImageDecoder.sniff(body, body.length);
        if (f == null) throw new ServeException(415, "wrong type: " + BODY + " is not a PNG or JPEG image (by its first bytes)");
        long[] wh = headerSize(body, f);
        if (wh != null && wh[0] * wh[1] > maxPixels) {
            throw new ServeException(413, BODY + ": image of " + wh[0] + "x" + wh[1] + " pixels exceeds the server's limit of " + maxPixels
                    + " pixels (--max-pixels)");
        }
    }

    /** Width and height from the image's header (no pixel decoded), or null when unreadable (the decoder then names the problem). */
    private static long[] headerSize(byte[] body, ImageDecoder.Format f) {
        Iterator<ImageReader> readers = ImageIO.getImageReadersByFormatName(f == ImageDecoder.Format.PNG ? "png" : "jpeg");
        if (!readers.hasNext()) return null;
        ImageReader r = readers.next();
        try (ImageInputStream in = new MemoryCacheImageInputStream(new ByteArrayInputStream(body))) {
            r.setInput(in, true, true);
            return new long[] {r.getWidth(0), r.getHeight(0)};
        } catch (IOException | RuntimeException e) {
            return null;
        } finally {
            r.dispose();
        }
    }

    static byte[] png(java.awt.image.BufferedImage img) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            if (!ImageIO.write(img, "png", out)) throw new IOException("no PNG writer in this Java runtime");
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }


    // ------------------------------------------------------------------ helpers

    static byte[] json(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** "type/subtype" in lower case without parameters, or null. */
    static String mediaType(String contentType) {
        if (contentType == null || contentType.isBlank()) return null;
        int semi = contentType.indexOf(';');
        return (semi < 0 ? contentType : contentType.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
    }

    /** The reader's message with the staged file's path replaced by "request body". */
    static String renamed(String message, Path staged) {
        return staged == null || message == null ? message : message.replace(staged.toString(), BODY);
    }

    private static void delete(Path f) {
        if (f == null) return;
        try {
            Files.deleteIfExists(f);
        } catch (IOException ignored) {
            // a scratch file left behind goes with the scratch folder when the server stops
        }
    }
}
