package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The top-level command line: unknown commands, help of a command, the hint after a usage error. */
class CommandLineTest {
    @Test
    void anUnknownCommandIsOneErrorAndExit2EvenWithHelp() {
        for (String[] line : new String[][] {{"foo"}, {"foo", "--help"}, {"foo", "-h"}, {"--stacktrace", "foo", "train"}, {"-V", "foo"}}) {
            TrainPredictCommandTest.Run r = TrainPredictCommandTest.run(line);
            assertEquals(2, r.code(), String.join(" ", line));
            assertEquals("", r.out(), String.join(" ", line));
            assertEquals(2, r.err().strip().lines().count(), r.err());
            assertTrue(r.err().startsWith("error: 'foo' is not a structlr command; the commands are: train, evaluate, predict"), r.err());
            assertTrue(r.err().strip().endsWith("try: structlr --help"), r.err());
        }
    }

    @Test
    void aCommandsHelpIsThatCommandsHelp() {
        for (String c : new String[] {"serve", "train", "classes", "infer"}) {
            TrainPredictCommandTest.Run r = TrainPredictCommandTest.run(c, "--help");
            assertEquals(0, r.code(), r.err());
            assertTrue(r.out().startsWith("Usage: structlr " + c + " "), r.out());
        }
        TrainPredictCommandTest.Run top = TrainPredictCommandTest.run("--help");
        assertEquals(0, top.code(), top.err());
        assertTrue(top.out().startsWith("Usage: structlr [-hV]"), top.out());
    }

    @Test
    void aUsageErrorNamesTheCommandsHelpOnce() {
        TrainPredictCommandTest.Run r = TrainPredictCommandTest.run("serve", "--no-such-option");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().strip().endsWith("try: structlr serve --help"), r.err());
        TrainPredictCommandTest.Run top = TrainPredictCommandTest.run("--no-such-option");
        assertEquals(2, top.code(), top.err());
        assertTrue(top.err().strip().endsWith("try: structlr --help"), top.err());
    }
}
