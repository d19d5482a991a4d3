package org.structlr.features;

import java.nio.file.Files;
import java.nio.file.Path;
import org.structlr.augment.Augmentation;
import org.structlr.data.BadInputException;

/**
 * Reads an image and its mask into a {@link LabelledImage} at the working size: the image decoded
 * and area-averaged by {@link ImageDecoder} (the path {@code predict} reads new images with), the
 * mask read by a {@link MaskReader} and brought to the same grid without interpolating labels,
 * optionally after one augmentation transform applied to both (crop and flip; colour jitter on the
 * image; the scale multiplies the working size).
 *
 * <p><b>Mask size.</b> A mask must have its image's size scaled by one factor, up to one pixel of
 * rounding per side: {@code |w_m * H - h_m * W| <= W + H} (the Weizmann horses store most masks at
 * a smaller scale than their photos); both are resized to the same working grid, so such a mask
 * stays aligned with its image.
 */
public final class LabelledImageReader {
    private final MaskReader masks;
    private final WorkingSize size;

    public LabelledImageReader(MaskReader masks, WorkingSize size) {
        this.masks = java.util.Objects.requireNonNull(masks);
        this.size = java.util.Objects.requireNonNull(size);
    }

    public MaskReader masks() { return masks; }
    public WorkingSize size() { return size; }

    /** Reads {@code image} with its {@code mask}, unchanged. */
    public LabelledImage read(String name, Path image, Path mask) {
        return read(name, image, mask, Augmentation.Transform.IDENTITY);
    }

    /**
     * Reads {@code image} with its {@code mask}, transformed by {@code t}.
     *
     * @throws BadInputException naming the file: missing, unreadable, a mask that does not fit its image
     */
    public LabelledImage read(String name, Path image, Path mask, Augmentation.Transform t) {
        if (!Files.isRegularFile(image)) throw new BadInputException(image, "missing image file");
        if (!Files.isRegularFile(mask)) throw new BadInputException(mask, "missing mask for " + image.getFileName());
        ImageDecoder.Decoded img = ImageDecoder.decode(image, 3);
        MaskReader.SourceMask m = masks.read(mask);
        long lhs = (long) m.width() * img.height(), rhs = (long) m.height() * img.width();
        if (Math.abs(lhs - rhs) > img.width() + img.height()) {
            throw new BadInputException(mask, "mask of " + m.width() + "x" + m.height() + " (width x height) does not fit its image "
                    + image.getFileName() + " of " + img.width() + "x" + img.height() + " (another size: not the same shape scaled)");
        }
        int[] own = t.size(img.height(), img.width());
        int[] hw = t.scaled(size.shapeOf(own[0], own[1]));
        int height = hw[0], width = hw[1];
        float[] rgb;
        if (t.equals(Augmentation.Transform.IDENTITY)) {
            rgb = img.rgb(height, width);
        } else {
            float[][] planes = new float[3][];
            for (int ch = 0; ch < 3; ch++) planes[ch] = t.geometry(img.planes()[ch], img.height(), img.width());
            t.jitter(planes);
            rgb = new ImageDecoder.Decoded(image, own[0], own[1], planes).rgb(height, width);
        }
        return new LabelledImage(name, image, height, width, rgb, m.labelsAt(t, height, width));
    }
}
