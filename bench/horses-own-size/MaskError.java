import java.awt.Image;
import java.awt.image.BufferedImage;
import java.io.File;
import java.util.Arrays;
import javax.imageio.ImageIO;

/**
 * Per-pixel error of predicted masks against truth masks of the same name stem, both read
 * as grey (mean of R, G, B) and thresholded at 128 (a truth mask of another size is first
 * area-averaged to the predicted one's, which is the photo's): the pooled error (all pixels) and the mean of the
 * per-image errors. Usage: java MaskError.java PREDICTED_DIR TRUTH_DIR
 */
public class MaskError {
    public static void main(String[] args) throws Exception {
        File[] predicted = new File(args[0]).listFiles((d, n) -> n.endsWith(".png"));
        if (predicted == null || predicted.length == 0) throw new IllegalArgumentException(args[0] + ": no PNG masks");
        Arrays.sort(predicted);
        long wrong = 0, total = 0;
        double sumOfErrors = 0;
        for (File p : predicted) {
            String stem = p.getName().replaceFirst("\\.png$", "");
            File t = new File(args[1], stem + ".jpg");
            if (!t.exists()) t = new File(args[1], stem + ".png");
            BufferedImage a = ImageIO.read(p), b = ImageIO.read(t);
            if (a.getWidth() != b.getWidth() || a.getHeight() != b.getHeight()) b = scaled(b, a.getWidth(), a.getHeight());
            long w = 0, n = (long) a.getWidth() * a.getHeight();
            for (int y = 0; y < a.getHeight(); y++) {
                for (int x = 0; x < a.getWidth(); x++) if (fg(a.getRGB(x, y)) != fg(b.getRGB(x, y))) w++;
            }
            wrong += w;
            total += n;
            sumOfErrors += (double) w / n;
        }
        System.out.printf("%d masks, %d pixels: pooled error %.4f, mean per-image error %.4f%n",
                predicted.length, total, (double) wrong / total, sumOfErrors / predicted.length);
    }

    /** The truth mask at the photo's size (the database stores most masks scaled by one factor), area-averaged. */
    static BufferedImage scaled(BufferedImage m, int w, int h) {
        Image s = m.getScaledInstance(w, h, Image.SCALE_AREA_AVERAGING);
        BufferedImage out = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        out.getGraphics().drawImage(s, 0, 0, null);
        return out;
    }

    static boolean fg(int rgb) {
        return (((rgb >> 16) & 255) + ((rgb >> 8) & 255) + (rgb & 255)) / 3 >= 128;
    }
}
