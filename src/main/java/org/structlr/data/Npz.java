package org.structlr.data;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipException;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/**
 * Reads and writes NumPy {@code .npz} files (a zip of {@code .npy} arrays, one entry
 * {@code name.npy} per array) and single {@code .npy} arrays.
 *
 * <p>Reading handles what {@code numpy.savez} and {@code numpy.savez_compressed} produce: stored
 * and deflated zip entries (ZIP64 too), {@code .npy} format versions 1.0, 2.0 and 3.0,
 * little-endian, big-endian and byte-order-free ({@code '|'}) dtypes float32, float64, int32, int64,
 * uint8 and bool, C and Fortran order (Fortran arrays are reordered to C order), scalars
 * (shape {@code ()}) and empty arrays. Everything else (other dtypes, structured or object arrays,
 * pickles) is rejected with a {@link BadInputException} that names the file, the array and the
 * problem.
 *
 * <p>Writing produces what {@code numpy.savez} produces: stored (or, on request, deflated) entries,
 * {@code .npy} version 1.0 (2.0 only for a header over 64 KiB), little-endian, C order, the header
 * padded so the data starts on a 64-byte boundary. The file is written through {@link AtomicFiles}
 * (temporary sibling, synced, renamed into place), so a reader never sees half a file.
 *
 * <p>Why not ND4J: ND4J 1.0.0-M2.1 offers {@code Nd4j.createFromNpzFile(File)},
 * {@code Nd4j.createFromNpyFile}/{@code readNpy} and {@code Nd4j.toNpyByteArray}/{@code writeAsNumpy}.
 * Its {@code .npz} reader (in {@code BaseNativeNDArrayFactory}) scans the raw file for zip local
 * headers itself instead of using a zip library, so it cannot read deflated entries
 * ({@code savez_compressed}); it knows only the codes f2/f4/f8/i1/i2/i4/i8/u1 (no bool), does not
 * honour a big-endian byte-order mark, and reports problems as a bare {@code Exception} or
 * {@code IllegalStateException} without naming the array. It also has no {@code .npz} writer. Hence
 * this small hand-written reader and writer on {@link java.util.zip}; arrays convert to ND4J with
 * {@link NpyArray#toINDArray()}.
 */
public final class Npz {
    private Npz() {}

    private static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y'};
    private static final int ALIGN = 64;
    /** Header bytes read at most (numpy's own reader stops at 10,000 by default). */
    static final int MAX_HEADER = 1 << 20;

    // ------------------------------------------------------------------------------------------
    // .npz

    /**
     * All arrays of an {@code .npz} file, keyed by entry name without the {@code .npy} suffix, in
     * the order of the zip.
     *
     * @throws BadInputException naming the file and the problem: missing file, not a zip, truncated
     *     or corrupt entries, malformed or unsupported {@code .npy} content
     */
    public static Map<String, NpyArray> read(Path file) {
        if (!Files.exists(file)) throw new BadInputException(file, "missing file: no such file");
        if (Files.isDirectory(file)) throw new BadInputException(file, "is a folder, not an .npz file");
        try {
            return Reading.guard(file, () -> readZip(file));
        } catch (ZipException ex) {
            throw new BadInputException(file, "not a zip file (.npz) or truncated: " + ex.getMessage(), ex);
        } catch (NoSuchFileException ex) {
            throw new BadInputException(file, "missing file: no such file", ex);
        } catch (IOException ex) {
            throw new BadInputException(file, "cannot read: " + ex, ex);
        }
    }

    /**
     * Limits before allocation: the entry count, each entry's size as the zip's central directory
     * declares it ({@link InputLimits#ARRAY_BYTES}) and their sum ({@link InputLimits#NPZ_BYTES})
     * are checked before anything is inflated; an entry is then read into exactly its declared size,
     * and one that inflates to more (a zip bomb that lies about its size) or fewer bytes, or whose
     * CRC-32 differs from the recorded one, is refused ({@link ZipFile} itself checks no CRC).
     */
    private static Map<String, NpyArray> readZip(Path file) throws IOException {
        Map<String, NpyArray> out = new LinkedHashMap<>();
        try (ZipFile zip = new ZipFile(file.toFile())) {
            InputLimits.NPZ_ENTRIES.check(file, zip.size(), "zip");
            long total = 0;
            Enumeration<? extends ZipEntry> entries = zip.entries();
            while (entries.hasMoreElements()) {
                ZipEntry e = entries.nextElement();
                if (e.isDirectory()) continue;
                String name = e.getName();
                String key = name.endsWith(".npy") ? name.substring(0, name.length() - 4) : name;
                long declared = e.getSize();
                if (declared < 0) throw new BadInputException(file, "zip entry '" + name + "' declares no size");
                InputLimits.ARRAY_BYTES.check(file, declared, "array '" + key + "'");
                total += declared;
                InputLimits.NPZ_BYTES.check(file, total, "arrays (inflated, in all)");
                if (out.containsKey(key)) throw new BadInputException(file, "array '" + key + "' appears twice");
                byte[] bytes = new byte[(int) declared];
                try (InputStream in = zip.getInputStream(e)) {
                    int n = in.readNBytes(bytes, 0, bytes.length);
                    if (n < declared) {
                        throw new BadInputException(file, "truncated or corrupt zip entry '" + name + "': " + n + " of its " + declared + " bytes");
                    }
                    if (in.read() >= 0) {
                        throw new BadInputException(file, "zip entry '" + name + "' inflates to more than the " + declared
                                + " bytes it declares (corrupt or a zip bomb)");
                    }
                } catch (ZipException | java.io.EOFException ex) {
                    throw new BadInputException(file, "truncated or corrupt zip entry '" + name + "': " + ex.getMessage(), ex);
                }
                CRC32 crc = new CRC32();
                crc.update(bytes);
                if (e.getCrc() != -1 && crc.getValue() != e.getCrc()) {
                    throw new BadInputException(file, "CRC-32 mismatch in zip entry '" + name + "' (recorded "
                            + Long.toHexString(e.getCrc()) + ", content " + Long.toHexString(crc.getValue()) + "): the file is corrupted");
                }
                try {
                    out.put(key, parseNpy(bytes));
                } catch (NpyFormatException ex) {
                    throw new BadInputException(file, "array '" + key + "': " + ex.getMessage(), ex);
                }
            }
        }
        return out;
    }

    /** The modification time of every entry written: the zip format's epoch, so that files depend on their arrays only. */
    static final java.time.LocalDateTime ENTRY_TIME = java.time.LocalDateTime.of(1980, 1, 1, 0, 0);

    /** Writes {@code arrays} like {@code numpy.savez} (stored entries), atomically. */
    public static void write(Path file, Map<String, NpyArray> arrays) throws IOException {
        write(file, arrays, false);
    }

    /**
     * Writes {@code arrays} as an {@code .npz} file, deflated like {@code numpy.savez_compressed}
     * when {@code compressed}, else stored like {@code numpy.savez}. The parent folder is created
     * when missing; the file appears atomically (temporary file in the same folder, then a move).
     */
    public static void write(Path file, Map<String, NpyArray> arrays, boolean compressed) throws IOException {
        for (String key : arrays.keySet()) {
            if (key == null || key.isEmpty()) throw new IllegalArgumentException("an array needs a non-empty name");
        }
        AtomicFiles.write(file, os -> {
            ZipOutputStream zos = new ZipOutputStream(os);
            for (Map.Entry<String, NpyArray> a : arrays.entrySet()) {
                byte[] npy = toNpy(a.getValue());
                ZipEntry e = new ZipEntry(a.getKey() + ".npy");
                e.setTimeLocal(ENTRY_TIME);   // a fixed time: the same arrays give the same file bytes
                if (compressed) {
                    e.setMethod(ZipEntry.DEFLATED);
                } else {
                    CRC32 crc = new CRC32();
                    crc.update(npy);
                    e.setMethod(ZipEntry.STORED);
                    e.setSize(npy.length);
                    e.setCompressedSize(npy.length);
                    e.setCrc(crc.getValue());
                }
                zos.putNextEntry(e);
                zos.write(npy);
                zos.closeEntry();
            }
            zos.finish();   // not close: AtomicFiles syncs and closes the file
        });
    }

    // ------------------------------------------------------------------------------------------
    // .npy

    /** A malformed or unsupported {@code .npy} byte string; the caller adds the file and array. */
    static final class NpyFormatException extends Exception {
        NpyFormatException(String message) {
            super(message);
        }
    }

    /** Parses one {@code .npy} byte string (see the class comment for what is supported). */
    static NpyArray parseNpy(byte[] b) throws NpyFormatException {
        if (b.length < 10) throw new NpyFormatException("truncated .npy: " + b.length + " bytes");
        for (int i = 0; i < MAGIC.length; i++) {
            if (b[i] != MAGIC[i]) throw new NpyFormatException("not an .npy array (bad magic string)");
        }
        int major = b[6] & 0xFF, minor = b[7] & 0xFF;
        int headerLen, headerStart;
        ByteBuffer lb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        if (major == 1) {
            headerLen = lb.getShort(8) & 0xFFFF;
            headerStart = 10;
        } else if (major == 2 || major == 3) {
            if (b.length < 12) throw new NpyFormatException("truncated .npy header");
            long len = lb.getInt(8) & 0xFFFFFFFFL;
            if (len > b.length) throw new NpyFormatException("truncated .npy header");
            headerLen = (int) len;
            headerStart = 12;
        } else {
            throw new NpyFormatException("unsupported .npy format version " + major + "." + minor);
        }
        if (headerStart + headerLen > b.length) throw new NpyFormatException("truncated .npy header");
        if (headerLen > MAX_HEADER) throw new NpyFormatException("header of " + headerLen + " bytes (numpy writes under 64 KiB; at most " + MAX_HEADER + " read)");
        String header = new String(b, headerStart, headerLen,
                major == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
        Map<String, Object> dict = new HeaderParser(header).parseDict();

        Object descr = dict.get("descr");
        Object fortran = dict.get("fortran_order");
        Object shapeObj = dict.get("shape");
        if (!(descr instanceof String)) {
            throw new NpyFormatException(descr == null ? "header has no 'descr'"
                    : "unsupported dtype " + descr + " (structured arrays are not supported)");
        }
        if (!(fortran instanceof Boolean)) throw new NpyFormatException("header has no boolean 'fortran_order'");
        if (!(shapeObj instanceof List)) throw new NpyFormatException("header has no 'shape' tuple");
        List<?> shapeList = (List<?>) shapeObj;
        long[] shape = new long[shapeList.size()];
        for (int i = 0; i < shape.length; i++) {
            Object d = shapeList.get(i);
            if (!(d instanceof Long) || (Long) d < 0) throw new NpyFormatException("bad dimension " + d + " in shape");
            shape[i] = (Long) d;
        }

        String code = (String) descr;
        ByteOrder order = ByteOrder.LITTLE_ENDIAN;
        if (!code.isEmpty() && "<>|=".indexOf(code.charAt(0)) >= 0) {
            char c = code.charAt(0);
            if (c == '>') order = ByteOrder.BIG_ENDIAN;
            else if (c == '=') order = ByteOrder.nativeOrder();
            code = code.substring(1);
        }
        if (code.equals("?")) code = "b1";
        NpyArray.DType dtype = NpyArray.DType.ofCode(code);
        if (dtype == null) {
            throw new NpyFormatException("unsupported dtype '" + descr + "' (supported: float32, float64, int32, int64, uint8, bool)");
        }

        long count;
        try {
            count = NpyArray.elementCount(shape);
        } catch (IllegalArgumentException ex) {
            throw new NpyFormatException(ex.getMessage());
        }
        int dataStart = headerStart + headerLen;
        long need = count * dtype.itemSize();
        if (b.length - (long) dataStart < need) {
            throw new NpyFormatException("truncated data: " + (b.length - dataStart) + " bytes for " + count
                    + " elements of " + dtype.code() + " (" + need + " bytes)");
        }
        int n = (int) count;
        int[] dest = (Boolean) fortran && shape.length > 1 ? fortranToC(shape, n) : null;
        ByteBuffer data = ByteBuffer.wrap(b, dataStart, (int) need).slice().order(order);
        Object arr;
        switch (dtype) {
            case FLOAT32: {
                float[] a = new float[n];
                for (int k = 0; k < n; k++) a[dest == null ? k : dest[k]] = data.getFloat(k * 4);
                arr = a;
                break;
            }
            case FLOAT64: {
                double[] a = new double[n];
                for (int k = 0; k < n; k++) a[dest == null ? k : dest[k]] = data.getDouble(k * 8);
                arr = a;
                break;
            }
            case INT32: {
                int[] a = new int[n];
                for (int k = 0; k < n; k++) a[dest == null ? k : dest[k]] = data.getInt(k * 4);
                arr = a;
                break;
            }
            case INT64: {
                long[] a = new long[n];
                for (int k = 0; k < n; k++) a[dest == null ? k : dest[k]] = data.getLong(k * 8);
                arr = a;
                break;
            }
            case UINT8: {
                byte[] a = new byte[n];
                for (int k = 0; k < n; k++) a[dest == null ? k : dest[k]] = data.get(k);
                arr = a;
                break;
            }
            case BOOL: {
                boolean[] a = new boolean[n];
                for (int k = 0; k < n; k++) a[dest == null ? k : dest[k]] = data.get(k) != 0;
                arr = a;
                break;
            }
            default: throw new AssertionError(dtype);
        }
        return NpyArray.wrap(shape, dtype, arr);
    }

    /**
     * For each position k of a Fortran-order (first index fastest) element sequence, its position
     * in C order (last index fastest).
     */
    private static int[] fortranToC(long[] shape, int n) {
        int nd = shape.length;
        long[] cStride = new long[nd];
        long s = 1;
        for (int d = nd - 1; d >= 0; d--) {
            cStride[d] = s;
            s *= shape[d];
        }
        int[] dest = new int[n];
        long[] idx = new long[nd];
        long c = 0;
        for (int k = 0; k < n; k++) {
            dest[k] = (int) c;
            for (int d = 0; d < nd; d++) { // odometer, first axis fastest
                idx[d]++;
                c += cStride[d];
                if (idx[d] < shape[d]) break;
                c -= idx[d] * cStride[d];
                idx[d] = 0;
            }
        }
        return dest;
    }

    /** One array as {@code .npy} bytes: version 1.0 (2.0 for huge headers), little-endian, C order. */
    static byte[] toNpy(NpyArray a) {
        NpyArray.DType dt = a.dtype();
        String orderMark = dt.itemSize() == 1 ? "|" : "<";
        StringBuilder shape = new StringBuilder("(");
        long[] s = a.shape();
        for (int i = 0; i < s.length; i++) {
            if (i > 0) shape.append(", ");
            shape.append(s[i]);
        }
        if (s.length == 1) shape.append(',');
        shape.append(')');
        String dict = "{'descr': '" + orderMark + dt.code() + "', 'fortran_order': False, 'shape': " + shape + ", }";
        int prefix = 10;
        int total = prefix + dict.length() + 1;
        int padded = (total + ALIGN - 1) / ALIGN * ALIGN;
        int major = 1;
        if (padded - prefix > 0xFFFF) {
            major = 2;
            prefix = 12;
            total = prefix + dict.length() + 1;
            padded = (total + ALIGN - 1) / ALIGN * ALIGN;
        }
        StringBuilder h = new StringBuilder(dict);
        while (prefix + h.length() + 1 < padded) h.append(' ');
        h.append('\n');
        byte[] header = h.toString().getBytes(StandardCharsets.ISO_8859_1);

        long dataLen = (long) a.size() * dt.itemSize();
        if (padded + dataLen > Integer.MAX_VALUE - 8) throw new IllegalArgumentException(a + " is too large for one .npy entry here");
        ByteBuffer out = ByteBuffer.allocate((int) (padded + dataLen)).order(ByteOrder.LITTLE_ENDIAN);
        out.put(MAGIC).put((byte) major).put((byte) 0);
        if (major == 1) out.putShort((short) header.length);
        else out.putInt(header.length);
        out.put(header);
        Object raw = a.rawData();
        switch (dt) {
            case FLOAT32: for (float v : (float[]) raw) out.putFloat(v); break;
            case FLOAT64: for (double v : (double[]) raw) out.putDouble(v); break;
            case INT32: for (int v : (int[]) raw) out.putInt(v); break;
            case INT64: for (long v : (long[]) raw) out.putLong(v); break;
            case UINT8: out.put((byte[]) raw); break;
            case BOOL: for (boolean v : (boolean[]) raw) out.put((byte) (v ? 1 : 0)); break;
            default: throw new AssertionError(dt);
        }
        return out.array();
    }

    /**
     * The Python literal of an {@code .npy} header: a dict of strings, booleans, integers
     * (an old Python 2 {@code L} suffix is allowed) and tuples or lists of these.
     */
    private static final class HeaderParser {
        /** Nesting of dicts, tuples and lists: a real header has 2 (the dict and its shape tuple). */
        static final int MAX_DEPTH = 8;
        private final String s;
        private int p;
        private int depth;

        HeaderParser(String s) {
            this.s = s;
        }

        Map<String, Object> parseDict() throws NpyFormatException {
            skip();
            expect('{');
            enter();
            Map<String, Object> m = new LinkedHashMap<>();
            while (true) {
                skip();
                if (peek() == '}') {
                    p++;
                    depth--;
                    return m;
                }
                Object key = value();
                if (!(key instanceof String)) throw bad("dict key is not a string");
                skip();
                expect(':');
                m.put((String) key, value());
                skip();
                if (peek() == ',') p++;
                else if (peek() != '}') throw bad("expected ',' or '}'");
            }
        }

        private Object value() throws NpyFormatException {
            skip();
            char c = peek();
            if (c == '\'' || c == '"') {
                p++;
                int start = p;
                while (p < s.length() && s.charAt(p) != c) p++;
                if (p >= s.length()) throw bad("unterminated string");
                return s.substring(start, p++);
            }
            if (c == '(' || c == '[') {
                char close = c == '(' ? ')' : ']';
                p++;
                enter();
                List<Object> items = new ArrayList<>();
                while (true) {
                    skip();
                    if (peek() == close) {
                        p++;
                        depth--;
                        return items;
                    }
                    items.add(value());
                    skip();
                    if (peek() == ',') p++;
                    else if (peek() != close) throw bad("expected ',' or '" + close + "'");
                }
            }
            if (c == '{') return parseDict();
            if (s.startsWith("True", p)) {
                p += 4;
                return Boolean.TRUE;
            }
            if (s.startsWith("False", p)) {
                p += 5;
                return Boolean.FALSE;
            }
            if (c == '-' || Character.isDigit(c)) {
                int start = p++;
                while (p < s.length() && Character.isDigit(s.charAt(p))) p++;
                String num = s.substring(start, p);
                if (p < s.length() && (s.charAt(p) == 'L' || s.charAt(p) == 'l')) p++;
                try {
                    return Long.parseLong(num);
                } catch (NumberFormatException ex) {
                    throw bad("bad integer " + num);
                }
            }
            throw bad("unexpected character '" + c + "'");
        }

        /** Bounded recursion: a header nested deeper than {@link #MAX_DEPTH} is refused, never a stack overflow. */
        private void enter() throws NpyFormatException {
            if (++depth > MAX_DEPTH) throw bad("nested deeper than " + MAX_DEPTH);
        }

        private void skip() {
            while (p < s.length() && Character.isWhitespace(s.charAt(p))) p++;
        }

        private char peek() throws NpyFormatException {
            if (p >= s.length()) throw bad("header ends early");
            return s.charAt(p);
        }

        private void expect(char c) throws NpyFormatException {
            if (peek() != c) throw bad("expected '" + c + "'");
            p++;
        }

        private NpyFormatException bad(String what) {
            String text = s.strip();
            if (text.length() > 200) text = text.substring(0, 200) + "...";
            return new NpyFormatException("malformed .npy header (" + what + " at " + p + "): " + text);
        }
    }
}
