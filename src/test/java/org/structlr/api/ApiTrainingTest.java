package org.structlr.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.cli.Main;
import org.structlr.data.Example;
import org.structlr.data.ExampleIO;
import org.structlr.learn.IterationRecord;
import org.structlr.learn.LearningReport;

/**
 * The training side of the API: the report returned with the model, listeners, schedule and
 * engine, checkpoints and resuming, validation, and images as examples; each against what the
 * command line computes for the same settings, or against an uninterrupted run.
 */
class ApiTrainingTest {
    @TempDir
    Path tmp;

    static CrfData denoising() {
        return CrfData.denoising(2, 2, 16, 3);
    }

    @Test
    void theReportIsTheCurveTheCommandLineWritesAndTheListenerSeesEveryIterationInOrder() throws IOException {
        CrfData data = denoising();
        data.write(tmp.resolve("data"));
        List<TrainingReport.Iteration> told = new ArrayList<>();
        List<Integer> totals = new ArrayList<>();
        Crf crf = CrfTrainer.builder().iterations(4).schedule("extrapolate").threads(1)
                .listener((row, total) -> { told.add(row); totals.add(total); }).build().train(CrfData.read(tmp.resolve("data")));
        int rc = Main.execute("train", "--data", tmp.resolve("data").toString(), "--iterations", "4", "--schedule", "extrapolate",
                "--eval-every", "1", "--threads", "1", "--quiet", "--report", tmp.resolve("report.json").toString());
        assertEquals(0, rc);
        List<IterationRecord> cli = LearningReport.readCurve(tmp.resolve("report.json"));
        TrainingReport report = crf.report().orElseThrow();
        assertEquals(4, cli.size());
        assertEquals(cli.size(), report.curve().size());
        for (int k = 0; k < cli.size(); k++) {
            IterationRecord c = cli.get(k);
            TrainingReport.Iteration a = report.curve().get(k);
            assertEquals(k + 1, a.iteration());
            assertEquals(c.iteration(), a.iteration());
            assertEquals(c.objective(), a.objective(), 0.0, "objective of iteration " + a.iteration());
            assertEquals(c.trainError(), a.trainError(), 0.0);
            assertEquals(c.testError(), a.testError(), 0.0);
            assertTrue(a.seconds() >= a.learningSeconds() && a.learningSeconds() > 0, a.toString());
        }
        assertEquals(report.curve(), told);
        assertEquals(List.of(4, 4, 4, 4), totals);
        assertEquals(4, report.keptIteration());
        assertTrue(report.validation().isEmpty());
        assertTrue(report.oracleSeconds() > 0 && report.messagePassingSeconds() > 0, report.toString());
        assertEquals("extrapolate", crf.settings().get("schedule"));
        // the report's own files read back as the command line's do
        report.writeJson(tmp.resolve("api.json"));
        assertEquals(report.curve(), LearningReport.readCurve(tmp.resolve("api.json")).stream().map(TrainingReport.Iteration::of).toList());
        BufferedImage plot = report.plot();
        assertTrue(plot.getWidth() > 100 && plot.getHeight() > 100);
        // a model loaded from a folder has no report
        crf.save(tmp.resolve("model"));
        assertTrue(Crf.load(tmp.resolve("model")).report().isEmpty());
    }

    @Test
    void evalEveryThinsTheCurveAndTheListenerFollowsIt() {
        List<Integer> seen = new ArrayList<>();
        Crf crf = CrfTrainer.builder().iterations(5).evalEvery(2).listener((row, total) -> seen.add(row.iteration())).build().train(denoising());
        assertEquals(List.of(1, 2, 4, 5), seen);
        assertEquals(seen, crf.report().orElseThrow().curve().stream().map(TrainingReport.Iteration::iteration).toList());
    }

    @Test
    void resumingACheckpointGivesTheUninterruptedRun() {
        CrfData data = denoising();
        Crf whole = CrfTrainer.builder().iterations(4).build().train(data);
        Path dir = tmp.resolve("checkpoints");
        CrfTrainer.builder().iterations(2).checkpoint(dir, 1).build().train(data);
        List<Integer> told = new ArrayList<>();
        Crf resumed = CrfTrainer.resume(dir).iterations(4).listener((row, total) -> told.add(row.iteration())).build().train(data);
        assertEquals(List.of(3, 4), told);
        List<TrainingReport.Iteration> a = whole.report().orElseThrow().curve(), b = resumed.report().orElseThrow().curve();
        assertEquals(a.size(), b.size());
        for (int k = 0; k < a.size(); k++) {
            assertEquals(a.get(k).objective(), b.get(k).objective(), 0.0, "objective of iteration " + (k + 1));
            assertEquals(a.get(k).testError(), b.get(k).testError(), 0.0, "test error of iteration " + (k + 1));
        }
        CrfExample ex = data.test().get(0);
        assertArrayEquals(whole.predict(ex).marginals()[7], resumed.predict(ex).marginals()[7]);
        // the resumed run went on checkpointing into the folder it resumed from, every iteration as the run it continued
        assertEquals(List.of("iteration-000003", "iteration-000004"), names(dir));
        // checkpoint(dir, every) redirects it; an older checkpoint of the folder cannot continue into it (newer ones there)
        Path elsewhere = tmp.resolve("elsewhere");
        CrfTrainer.resume(dir).iterations(6).checkpoint(elsewhere, 2).build().train(data);
        assertEquals(List.of("iteration-000006"), names(elsewhere));
        assertEquals(List.of("iteration-000003", "iteration-000004"), names(dir));
        RuntimeException older = assertThrows(RuntimeException.class, () -> CrfTrainer.resume(dir.resolve("iteration-000003")).build());
        assertTrue(older.getMessage().startsWith(dir.resolve("iteration-000003") + ": cannot go on checkpointing into the folder resumed from")
                && older.getMessage().contains("checkpoint(dir, every)"), older.getMessage());

        // a setting other than iterations, threads, listener or checkpoint would change the run: refused
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CrfTrainer.resume(dir).eps(0.2).build());
        assertTrue(e.getMessage().contains("the checkpoint was trained with"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> CrfTrainer.resume(dir).unaryOption("max-iterations", "10").build());
        assertThrows(IllegalArgumentException.class, () -> CrfTrainer.resume(dir).iterations(1).build());
        // other data
        RuntimeException other = assertThrows(RuntimeException.class, () -> CrfTrainer.resume(dir).iterations(4).build().train(CrfData.denoising(2, 2, 16, 4)));
        assertTrue(other.getMessage().contains("not the data the checkpoint was trained on"), other.getMessage());
    }

    private static List<String> names(Path dir) {
        try (java.util.stream.Stream<Path> s = java.nio.file.Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The learner's own refusal to continue a checkpoint (its oracles ran otherwise: its manifest edited) names the checkpoint folder. */
    @Test
    void aRefusedResumeNamesTheCheckpointFolder() throws java.io.IOException {
        CrfData data = denoising();
        Path dir = tmp.resolve("ck-oracles");
        CrfTrainer.builder().iterations(2).checkpoint(dir, 1).build().train(data);
        org.structlr.learn.CheckpointerAccess.rewriteManifest(dir.resolve("iteration-000002"),
                m -> ((com.fasterxml.jackson.databind.node.ObjectNode) m.get("oracles")).put("unary", "linear (another tolerance)"));
        RuntimeException e = assertThrows(RuntimeException.class, () -> CrfTrainer.resume(dir).iterations(3).build().train(data));
        assertTrue(e.getMessage().startsWith(dir + ": cannot resume: the state's unary oracle ran as \"linear (another tolerance)\""), e.getMessage());
        assertEquals(List.of("iteration-000001", "iteration-000002"), names(dir), "no checkpoint written");
    }

    /** Class and example weights, and region factors, are kept by the checkpoint: resume() continues with them, and refuses others. */
    @Test
    void resumingKeepsWeightsAndRegions() {
        CrfData data = CrfData.denoising(2, 2, 8, 3);
        for (boolean regions : new boolean[] {false, true}) {
            CrfTrainer.Builder b = regions ? CrfTrainer.builder().regions("triplets") : CrfTrainer.builder().classWeights("1,3").exampleWeights(2, 0.5);
            Crf whole = b.iterations(4).build().train(data);
            Path dir = tmp.resolve("checkpoints-" + regions);
            CrfTrainer.Builder c = regions ? CrfTrainer.builder().regions("triplets") : CrfTrainer.builder().classWeights("1,3").exampleWeights(2, 0.5);
            c.iterations(2).checkpoint(dir, 1).build().train(data);
            Crf resumed = CrfTrainer.resume(dir).iterations(4).build().train(data);
            List<TrainingReport.Iteration> x = whole.report().orElseThrow().curve(), y = resumed.report().orElseThrow().curve();
            assertEquals(4, y.size());
            for (int k = 0; k < x.size(); k++) assertEquals(x.get(k).objective(), y.get(k).objective(), 0.0, regions + ": objective of iteration " + (k + 1));
            CrfExample ex = data.test().get(0);
            assertArrayEquals(whole.predict(ex).marginals()[5], resumed.predict(ex).marginals()[5]);
            CrfTrainer.Builder other = regions ? CrfTrainer.resume(dir).regions("patches2x2") : CrfTrainer.resume(dir).classWeights("balanced");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, other::build);
            assertTrue(e.getMessage().contains(regions ? "regions triplets, not patches2x2" : "class weights [1.0, 3.0], example weights 2 given, not"),
                    e.getMessage());
        }
    }

    @Test
    void validationKeepsTheBestCheckAndTellsTheListener() {
        CrfData d = denoising();
        CrfData data = CrfData.of(d.train(), d.test().subList(0, 1), d.test().subList(1, 2));
        List<TrainingReport.Check> told = new ArrayList<>();
        Crf crf = CrfTrainer.builder().iterations(4).validation(2, 0).listener(new TrainingListener() {
            @Override public void onIteration(TrainingReport.Iteration row, int total) {}
            @Override public void onValidation(TrainingReport.Check check) { told.add(check); }
        }).build().train(data);
        TrainingReport r = crf.report().orElseThrow();
        assertEquals(List.of(2, 4), r.validation().stream().map(TrainingReport.Check::iteration).toList());
        assertEquals(r.validation(), told);
        TrainingReport.Check best = r.validation().stream().filter(TrainingReport.Check::best).reduce((x, y) -> y).orElseThrow();
        assertEquals(best.iteration(), r.keptIteration());
        for (TrainingReport.Check c : r.validation()) assertTrue(c.meanIou() <= best.meanIou());
        assertEquals(best.iteration(), ((Map<?, ?>) crf.provenance().get("validation")).get("keptIteration"));
        RuntimeException none = assertThrows(RuntimeException.class, () -> CrfTrainer.builder().validation(1, 0).build().train(d));
        assertTrue(none.getMessage().contains("val examples"), none.getMessage());
    }

    @Test
    void engineAndClassOptionsAreRecordedAndBadNamesRefused() {
        Crf crf = CrfTrainer.builder().iterations(1).engine("loop").unaryOption("max-iterations", "7").build().train(denoising());
        assertEquals("loop", crf.settings().get("engine"));
        assertEquals(7, ((Map<?, ?>) crf.settings().get("unaryOptions")).get("max-iterations"));
        assertThrows(IllegalArgumentException.class, () -> CrfTrainer.builder().engine("warp").build());
        assertThrows(IllegalArgumentException.class, () -> CrfTrainer.builder().schedule("fastest").build());
        assertThrows(IllegalArgumentException.class, () -> CrfTrainer.builder().unaryOption("no-such-option", "1").build());
    }

    @Test
    void imagesAreTheExamplesImagesDataWrites() throws IOException {
        Path images = Files.createDirectories(tmp.resolve("images")), masks = Files.createDirectories(tmp.resolve("masks"));
        Random rnd = new Random(5);
        for (int k = 0; k < 3; k++) {
            int h = 18 + k, w = 25;
            BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB), mask = new BufferedImage(w, h, BufferedImage.TYPE_BYTE_GRAY);
            for (int y = 0; y < h; y++) {
                for (int x = 0; x < w; x++) {
                    int label = x < 8 && y < 8 ? 255 : (x + y * k) / 9 % 3;   // a void block that survives the resize
                    mask.getRaster().setSample(x, y, 0, label);
                    img.setRGB(x, y, (40 * (label % 4) + rnd.nextInt(40)) << 16 | rnd.nextInt(256) << 8 | 90);
                }
            }
            ImageIO.write(img, "png", images.resolve("im" + k + ".png").toFile());
            ImageIO.write(mask, "png", masks.resolve("im" + k + ".png").toFile());
        }
        int rc = Main.execute("images-data", "--images", images.toString(), "--masks", masks.toString(), "--out", tmp.resolve("data").toString(),
                "--longest", "12", "--split", "0.34,0.33,0.33", "--quiet");
        assertEquals(0, rc);
        Map<String, Example> written = new HashMap<>();
        try (Stream<Path> s = Files.walk(tmp.resolve("data"))) {
            for (Path f : s.filter(p -> p.toString().endsWith(".npz")).toList()) written.put(f.getFileName().toString().replace(".npz", ""), ExampleIO.read(f));
        }
        CrfImages reader = CrfImages.builder().labels(3).longest(12).build();
        List<CrfExample> ours = reader.examples(images, masks);
        assertEquals(3, ours.size());
        assertEquals(3, written.size());
        for (int k = 0; k < 3; k++) {
            Example mine = ours.get(k).example, theirs = written.get("im" + k);
            assertEquals(theirs, mine, "im" + k);
            assertTrue(mine.hasVoid(), "void pixels (255) are label -1");
        }
        assertArrayEquals(written.get("im0").shape().orElseThrow(), ours.get(0).shape());
        assertEquals(12, ours.get(0).shape()[1], "longest side 12");
        // unlabelled, for prediction: the same features
        CrfExample photo = reader.example(images.resolve("im1.png"));
        assertEquals(null, photo.labels());
        assertArrayEquals(ours.get(1).example.unary(), photo.example.unary());
        // figure/ground and bad settings
        assertThrows(IllegalStateException.class, () -> CrfImages.builder().build().example(images.resolve("im0.png"), masks.resolve("im0.png")));
        assertThrows(IllegalArgumentException.class, () -> CrfImages.builder().maskThreshold(128).labels(3).build());
        assertThrows(RuntimeException.class, () -> CrfImages.builder().features("sift").build());
        CrfExample fg = CrfImages.builder().maskThreshold(1).longest(12).build().example(images.resolve("im0.png"), masks.resolve("im0.png"));
        assertNotEquals(null, fg.labels());
        assertFalse(java.util.Arrays.stream(fg.labels()).anyMatch(y -> y > 1));

        // trains, predicts and draws
        Crf crf = CrfTrainer.builder().iterations(2).build().train(CrfData.of(ours.subList(0, 2), ours.subList(2, 3)));
        BufferedImage fig = crf.figure(ours.subList(2, 3));
        assertTrue(fig.getWidth() > 3 * 100, "input, truth, prediction: " + fig.getWidth());
        assertThrows(IllegalArgumentException.class, () -> crf.figure(List.of(CrfExample.of(new float[42], 42, new int[0], new float[0], 3, null))));
    }
}
