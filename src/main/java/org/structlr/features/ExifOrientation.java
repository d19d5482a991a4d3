package org.structlr.features;

/**
 * A JPEG's EXIF orientation tag (0x0112) and the plane transform that shows the picture upright.
 * Hand-written because the Java runtime's JPEG reader ignores EXIF and one tag does not justify a
 * metadata library; every offset is bounds-checked and every loop moves forward, so a crafted file
 * ends the scan (orientation 1) instead of reading outside the array or looping.
 */
final class ExifOrientation {
    private ExifOrientation() {}

    /** The orientation (1..8; 1 = as stored) of the JPEG in {@code b}; 1 when absent or malformed. */
    static int of(byte[] b) {
        int off = 2;                                              // after SOI
        while (off + 4 <= b.length && (b[off] & 0xff) == 0xff) {
            int marker = b[off + 1] & 0xff;
            if (marker == 0xff) { off++; continue; }              // fill byte
            if (marker == 0xda || marker == 0xd9) return 1;       // image data or end: no EXIF before it
            int len = u16(b, off + 2, false);
            if (len < 2 || off + 2 + len > b.length) return 1;
            if (marker == 0xe1 && len >= 8 && b[off + 4] == 'E' && b[off + 5] == 'x' && b[off + 6] == 'i' && b[off + 7] == 'f'
                    && b[off + 8] == 0 && b[off + 9] == 0) {
                int o = tiff(b, off + 10, off + 2 + len);
                if (o != 0) return o;
            }
            off += 2 + len;
        }
        return 1;
    }

    /** Orientation from the TIFF block [start, end) of an EXIF segment's IFD0, or 0. */
    private static int tiff(byte[] b, int start, int end) {
        if (end - start < 8) return 0;
        boolean le;
        if (b[start] == 'I' && b[start + 1] == 'I') le = true;
        else if (b[start] == 'M' && b[start + 1] == 'M') le = false;
        else return 0;
        long ifd = u32(b, start + 4, le);
        if (ifd < 8 || start + ifd + 2 > end) return 0;
        int p = start + (int) ifd;
        int n = u16(b, p, le);
        p += 2;
        for (int k = 0; k < n && p + 12 <= end; k++, p += 12) {
            if (u16(b, p, le) == 0x0112 && u16(b, p + 2, le) == 3) {   // tag, type SHORT
                int v = u16(b, p + 8, le);
                return v >= 1 && v <= 8 ? v : 0;
            }
        }
        return 0;
    }

    private static int u16(byte[] b, int i, boolean le) {
        int x = b[i] & 0xff, y = b[i + 1] & 0xff;
        return le ? x | y << 8 : x << 8 | y;
    }

    private static long u32(byte[] b, int i, boolean le) {
        long hi = u16(b, le ? i + 2 : i, le), lo = u16(b, le ? i : i + 2, le);
        return hi << 16 | lo;
    }

    /**
     * The row-major {@code h x w} plane shown upright for EXIF orientation {@code o}: the result is
     * {@code w x h} for orientations 5 to 8 (a quarter turn).
     */
    static float[] apply(float[] src, int h, int w, int o) {
        if (o == 1) return src;
        float[] out = new float[src.length];
        boolean turn = o >= 5;
        int oh = turn ? w : h, ow = turn ? h : w;
        for (int r = 0; r < oh; r++) {
            for (int c = 0; c < ow; c++) {
                int sr, sc;
                switch (o) {
                    case 2 -> { sr = r; sc = w - 1 - c; }            // mirrored left-right
                    case 3 -> { sr = h - 1 - r; sc = w - 1 - c; }    // turned 180 degrees
                    case 4 -> { sr = h - 1 - r; sc = c; }            // mirrored top-bottom
                    case 5 -> { sr = c; sc = r; }                    // transposed
                    case 6 -> { sr = h - 1 - c; sc = r; }            // to be turned 90 degrees clockwise
                    case 7 -> { sr = h - 1 - c; sc = w - 1 - r; }    // transversed
                    case 8 -> { sr = c; sc = w - 1 - r; }            // to be turned 90 degrees anticlockwise
                    default -> throw new IllegalArgumentException("EXIF orientation " + o);
                }
                out[r * ow + c] = src[sr * w + sc];
            }
        }
        return out;
    }
}
