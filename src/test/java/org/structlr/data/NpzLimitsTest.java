package org.structlr.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile .npz files: sizes are checked before anything is allocated or inflated, an entry that
 * inflates past its declared size or fails its CRC-32 is refused, and a header nested without end
 * is an error, not a stack overflow. Each is one BadInputException naming the file.
 */
class NpzLimitsTest {
    @TempDir
    Path tmp;

    static BadInputException bad(Path f) {
        BadInputException e = assertThrows(BadInputException.class, () -> Npz.read(f));
        assertTrue(e.getMessage().startsWith(f + ": "), e.getMessage());
        return e;
    }

    static void assertHas(BadInputException e, String... parts) {
        for (String p : parts) assertTrue(e.getMessage().contains(p), "'" + p + "' in: " + e.getMessage());
    }

    /** An .npy of {@code n} float32 zeros. */
    static byte[] zeros(int n) {
        return Npz.toNpy(NpyArray.ofFloats(new float[n], n));
    }

    @Test
    void aZipBombIsRefusedBeforeItInflates() throws IOException {
        // 300 MB of zeros deflate to ~300 KB; the declared size is over the 1 GiB... no: under it, so lower the limit
        Path f = tmp.resolve("bomb.npz");
        try (ZipOutputStream z = new ZipOutputStream(Files.newOutputStream(f))) {
            z.putNextEntry(new ZipEntry("a.npy"));
            byte[] npy = zeros(16 << 20);   // 64 MiB
            z.write(npy);
            z.closeEntry();
        }
        assertTrue(Files.size(f) < 1 << 20, "compresses well: " + Files.size(f));
        System.setProperty("structlr.limit.arrayBytes", "16M");
        try {
            assertHas(bad(f), "array 'a' of 67108992 bytes exceeds the limit of 16777216 bytes", "-Dstructlr.limit.arrayBytes");
        } finally {
            System.clearProperty("structlr.limit.arrayBytes");
        }
        System.setProperty("structlr.limit.npzBytes", "1M");
        try {
            assertHas(bad(f), "arrays (inflated, in all) of 67108992 bytes exceeds the limit of 1048576 bytes");
        } finally {
            System.clearProperty("structlr.limit.npzBytes");
        }
        assertEquals(16 << 20, Npz.read(f).get("a").size());   // within the defaults it reads
    }

    /** A zip whose one deflated entry holds {@code content} but whose headers declare {@code declared} bytes. */
    static byte[] lyingZip(byte[] content, int declared) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (ZipOutputStream z = new ZipOutputStream(buf)) {
            z.putNextEntry(new ZipEntry("a.npy"));
            z.write(content);
            z.closeEntry();
        }
        byte[] b = buf.toByteArray();
        // patch the uncompressed size in the data descriptor and the central directory
        ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i + 4 <= b.length; i++) {
            int sig = bb.getInt(i);
            if (sig == 0x08074b50) bb.putInt(i + 12, declared);                // data descriptor: crc, csize, size
            if (sig == 0x02014b50) bb.putInt(i + 24, declared);                // central directory: uncompressed size
        }
        return b;
    }

    @Test
    void anEntryThatInflatesPastItsDeclaredSizeIsRefused() throws IOException {
        Path f = tmp.resolve("liar.npz");
        byte[] npy = zeros(1000);
        Files.write(f, lyingZip(npy, 200));
        assertHas(bad(f), "zip entry 'a.npy' inflates to more than the 200 bytes it declares");
        Path g = tmp.resolve("short.npz");
        Files.write(g, lyingZip(npy, npy.length + 100));
        assertHas(bad(g), "truncated or corrupt zip entry 'a.npy'");
    }

    @Test
    void crcDamageIsRefusedLikeNumpyDoes() throws IOException {
        Path f = tmp.resolve("crc.npz");
        Npz.write(f, Map.of("a", NpyArray.ofFloats(new float[] {1, 2, 3, 4}, 4)));   // stored entries, as numpy.savez
        byte[] b = Files.readAllBytes(f);
        // flip one bit of the float data (the last bytes of the stored entry, before the central directory)
        byte[] pattern = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putFloat(3f).array();
        int at = indexOf(b, pattern);
        assertTrue(at > 0);
        b[at] ^= 1;
        Files.write(f, b);
        assertHas(bad(f), "CRC-32 mismatch in zip entry 'a.npy'", "the file is corrupted");
    }

    static int indexOf(byte[] b, byte[] p) {
        outer:
        for (int i = 0; i + p.length <= b.length; i++) {
            for (int k = 0; k < p.length; k++) if (b[i + k] != p[k]) continue outer;
            return i;
        }
        return -1;
    }

    /** A stored .npz with one entry {@code name} holding {@code npy}. */
    static void storedZip(Path f, String name, byte[] npy) throws IOException {
        try (OutputStream os = Files.newOutputStream(f); ZipOutputStream z = new ZipOutputStream(os)) {
            ZipEntry e = new ZipEntry(name);
            CRC32 crc = new CRC32();
            crc.update(npy);
            e.setMethod(ZipEntry.STORED);
            e.setSize(npy.length);
            e.setCompressedSize(npy.length);
            e.setCrc(crc.getValue());
            z.putNextEntry(e);
            z.write(npy);
            z.closeEntry();
        }
    }

    /** An .npy whose header is {@code header} (version 2.0), no data. */
    static byte[] npyWithHeader(String header) {
        byte[] h = header.getBytes(StandardCharsets.ISO_8859_1);
        ByteBuffer b = ByteBuffer.allocate(12 + h.length).order(ByteOrder.LITTLE_ENDIAN);
        b.put(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0}).putInt(h.length).put(h);
        return b.array();
    }

    @Test
    void deeplyNestedHeaderIsAnErrorNotAStackOverflow() throws IOException {
        Path f = tmp.resolve("deep.npz");
        storedZip(f, "a.npy", npyWithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': " + "(".repeat(200_000) + "}"));
        assertHas(bad(f), "array 'a': malformed .npy header (nested deeper than 8");
        assertTrue(bad(f).getMessage().length() < 400, "the message quotes the header briefly");
    }

    @Test
    void headerDeclaringAHugeShapeIsRefusedBeforeAllocating() throws IOException {
        Path f = tmp.resolve("huge.npz");
        storedZip(f, "a.npy", npyWithHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (10000, 10000), }\n"));
        assertHas(bad(f), "array 'a': truncated data");
        Path g = tmp.resolve("overflow.npz");
        storedZip(g, "a.npy", npyWithHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }\n"));
        assertHas(bad(g), "array 'a'", "elements");
    }

    @Test
    void tooManyEntriesAndRepeatedNames() throws IOException {
        Path f = tmp.resolve("many.npz");
        try (ZipOutputStream z = new ZipOutputStream(Files.newOutputStream(f))) {
            for (int k = 0; k < 100; k++) {
                z.putNextEntry(new ZipEntry("a" + k + ".npy"));
                z.write(zeros(1));
                z.closeEntry();
            }
        }
        assertHas(bad(f), "zip of 100 entries exceeds the limit of 64 entries", "structlr.limit.npzEntries");
        Path g = tmp.resolve("twice.npz");
        try (ZipOutputStream z = new ZipOutputStream(Files.newOutputStream(g))) {
            z.putNextEntry(new ZipEntry("a.npy"));
            z.write(zeros(1));
            z.closeEntry();
            z.putNextEntry(new ZipEntry("a"));
            z.write(zeros(1));
            z.closeEntry();
        }
        assertHas(bad(g), "array 'a' appears twice");
    }
}
