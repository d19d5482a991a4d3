package org.structlr.learn;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.structlr.data.Dataset;
import org.structlr.data.Example;

/**
 * The hashes that tie a model or a checkpoint to its data: {@link #dataHash} (one machine holding
 * every example) and {@link #examplesHash} (computable by machines holding different examples, for
 * a data set only Spark executors read).
 */
public final class DataHashes {
    private DataHashes() {}

    /** Provenance key of {@link #dataHash}. */
    public static final String DATA_HASH = "dataHash";
    /** Provenance and checkpoint key of {@link #examplesHash}. */
    public static final String EXAMPLES_HASH = "examplesHash";

    /** SHA-256 over every training and test example's arrays, in order. */
    public static String dataHash(Dataset data) {
        MessageDigest md = sha256();
        for (Example ex : data.all()) update(md, ex);
        return HexFormat.of().formatHex(md.digest());
    }

    /**
     * SHA-256 over the SHA-256s of every example ({@link #exampleDigest}), train then test then
     * val: the hash of the same bytes as {@link #dataHash}, but one that machines holding different
     * examples can compute together (each hashes its own, one machine hashes the digests in
     * order), so that a data set read by Spark executors has a hash its driver can check a
     * checkpoint against without reading the data.
     */
    public static String examplesHash(Dataset data) {
        List<byte[]> digests = new ArrayList<>();
        for (Example ex : data.all()) digests.add(exampleDigest(ex));
        return examplesHash(digests);
    }

    /** {@link #examplesHash(Dataset)} from the examples' digests, in example order. */
    public static String examplesHash(List<byte[]> digests) {
        MessageDigest md = sha256();
        for (byte[] d : digests) md.update(d);
        return HexFormat.of().formatHex(md.digest());
    }

    /** SHA-256 of one example's arrays, the bytes {@link #dataHash} hashes for it. */
    public static byte[] exampleDigest(Example ex) {
        MessageDigest md = sha256();
        update(md, ex);
        return md.digest();
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** An example's features, edges and labels, little-endian. */
    private static void update(MessageDigest md, Example ex) {
        update(md, ex.unary());
        update(md, ex.pairwise());
        int[] e = ex.edges();
        ByteBuffer b = ByteBuffer.allocate(4 * e.length).order(ByteOrder.LITTLE_ENDIAN);
        for (int v : e) b.putInt(v);
        md.update(b.array());
        if (ex.hasLabels()) {
            int[] y = ex.labels();
            ByteBuffer c = ByteBuffer.allocate(4 * y.length).order(ByteOrder.LITTLE_ENDIAN);
            for (int v : y) c.putInt(v);
            md.update(c.array());
        }
    }

    private static void update(MessageDigest md, float[] a) {
        ByteBuffer b = ByteBuffer.allocate(4 * a.length).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : a) b.putFloat(v);
        md.update(b.array());
    }
}
