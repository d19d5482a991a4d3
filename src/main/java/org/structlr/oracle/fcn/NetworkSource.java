package org.structlr.oracle.fcn;

import com.fasterxml.jackson.annotation.JsonValue;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.structlr.oracle.nn.NetworkFiles;

/**
 * The value of the fcn option {@code net} ({@code --unary-net FILE}): a user's own network file, a
 * DL4J ComputationGraph configuration (JSON) or model zip, held as its bytes and known by its
 * SHA-256. Models and checkpoints record only {@code sha256:HEX} ({@link #toString}, its JSON form),
 * so two values are equal when their contents are: a resume with another file is refused, a resume
 * without the file works (the network it needs is the checkpoint's function). A recorded value has no
 * bytes; only a fresh start from it ({@link #graph}) needs them. {@link #NONE}: the built-in network.
 * Immutable.
 */
public final class NetworkSource implements Serializable {

    private static final long serialVersionUID = 1L;
    private static final String PREFIX = "sha256:";

    /** No own network: the built-in {@link DilatedConvolutions}. */
    public static final NetworkSource NONE = new NetworkSource(null, null, "");

    private final String file;        // as the user named it (null when recorded)
    private final byte[] content;     // null when recorded
    private final String sha256;      // lower-case hex; "" for NONE

    private NetworkSource(String file, byte[] content, String sha256) {
        this.file = file;
        this.content = content;
        this.sha256 = sha256;
    }

    /**
     * The option's text: {@code none}, a recorded {@code sha256:HEX}, or a file, read and checked
     * (its class names, then DL4J's parse; see {@link NetworkFiles#readOwnGraph}).
     *
     * @throws IllegalArgumentException naming the file and the problem
     */
    public static NetworkSource parse(String text) {
        String t = text.trim();
        if (t.equals("none")) return NONE;
        if (t.startsWith(PREFIX)) {
            String hex = t.substring(PREFIX.length()).toLowerCase(Locale.ROOT);
            if (!hex.matches("[0-9a-f]{64}")) throw new IllegalArgumentException("'" + t + "' is not sha256: and 64 hex digits");
            return new NetworkSource(null, null, hex);
        }
        return read(Path.of(t));
    }

    /** The file, read and checked. @throws IllegalArgumentException naming the file and the problem */
    public static NetworkSource read(Path file) {
        byte[] b;
        try {
            if (!Files.isRegularFile(file)) throw new IOException(file + ": no such network file");
            if (Files.size(file) > NetworkFiles.MAX_OWN_BYTES) {
                throw new IOException(file + ": larger than " + NetworkFiles.MAX_OWN_BYTES + " bytes; not a network structlr reads");
            }
            try (InputStream in = Files.newInputStream(file)) {
                b = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, NetworkFiles.MAX_OWN_BYTES + 1));
            }
            NetworkSource s = new NetworkSource(file.toString(), b, sha256(b));
            s.graph(0);                                   // refuse a bad file now, not at the first fit
            return s;
        } catch (IOException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /** Whether this is a network (not {@link #NONE}). */
    public boolean present() {
        return !sha256.isEmpty();
    }

    /** Whether the file's bytes are here (not only its recorded digest). */
    public boolean hasContent() {
        return content != null;
    }

    /** The file as the user named it, or {@code sha256:HEX} when only the digest is known. */
    public String name() {
        return file != null ? file : toString();
    }

    public String sha256() {
        return sha256;
    }

    /**
     * The network the file describes: a configuration initialised with {@code seed}, or a zip's
     * network with its parameters.
     *
     * @throws IOException naming the file: unreadable, a class outside DL4J's, or no bytes here (a recorded value)
     */
    public ComputationGraph graph(long seed) throws IOException {
        if (content == null) {
            throw new IOException("the network " + this + " is not here: give its file (--unary-net / --pairwise-net FILE) to start"
                    + " a run from it");
        }
        return NetworkFiles.readOwnGraph(content, file, seed);
    }

    private static String sha256(byte[] b) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NetworkSource s && s.sha256.equals(sha256);
    }

    @Override
    public int hashCode() {
        return sha256.hashCode();
    }

    /** {@code none} or {@code sha256:HEX}: what models and checkpoints record, and {@link #parse} reads back. */
    @JsonValue
    @Override
    public String toString() {
        return present() ? PREFIX + sha256 : "none";
    }

    private Object readResolve() {
        return present() ? this : NONE;
    }
}
