package org.structlr.data;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads a UAI evidence file ({@code .evid}) for a model with the given cardinalities. Two forms
 * exist in the wild:
 *
 * <pre>
 * n v_1 x_1 .. v_n x_n          the UAI 2014 form: one line, n observed variables and their labels
 * s                             the older (2008-2012) form: a leading count of evidence samples,
 * n v_1 x_1 .. v_n x_n          then one such line per sample (only a single sample is accepted)
 * </pre>
 *
 * They are told apart by the token count: the 2014 form has exactly {@code 1 + 2n} tokens; anything
 * else whose first line holds a single number is read as the older form. The result holds the
 * observed label of every variable, or -1 for an unobserved one. Every problem is a
 * {@link BadInputException} naming the file and the line. A file cannot make the reader hold more
 * than the {@code 2 + 2V} tokens a valid one has, nor a token longer than {@link InputLimits#TOKEN_CHARS}.
 */
public final class UaiEvidence {
    private UaiEvidence() {}

    /** Reads {@code file}; {@code cardinality[i]} is the label count of variable i in the model. */
    public static int[] read(Path file, int[] cardinality) {
        return TextFiles.read(file, "an evidence file", (f, in) -> parse(f, in, cardinality));
    }

    private record Token(String text, int line) {}

    /** Parses evidence text; {@code file} only names the source in messages. */
    public static int[] parse(Path file, Reader in, int[] cardinality) throws IOException {
        // Evidence files are small (at most 2 + 2V numbers for one sample): read all tokens first,
        // which is what lets the two forms be told apart. Reading stops one token past that many: the
        // checks below then name the problem (a count that is too large, or an unexpected token).
        List<Token> tokens = new ArrayList<>();
        UaiTokens r = new UaiTokens(file, in);
        long most = 2 + 2L * cardinality.length;
        int firstLineTokens = 0;
        String text;
        while (tokens.size() <= most && (text = r.next(null)) != null) {
            tokens.add(new Token(text, r.line()));
            if (r.line() == tokens.get(0).line()) firstLineTokens++;
        }
        int[] observed = new int[cardinality.length];
        Arrays.fill(observed, -1);
        if (tokens.isEmpty()) throw new BadInputException(file, "file is empty (no evidence: write 0 for none)");
        int first = integer(file, tokens, 0, "the number of observed variables");
        int start;
        if (tokens.size() == 1 + 2L * Math.max(first, 0)) {
            start = 0; // the 2014 one-line form
        } else if (firstLineTokens == 1) {
            int samples = first;
            if (samples < 0) throw error(file, tokens.get(0), "the number of evidence samples is " + samples + "; it must be at least 0");
            if (samples == 0) {
                if (tokens.size() > 1) throw error(file, tokens.get(1), "unexpected '" + tokens.get(1).text() + "' after a sample count of 0");
                return observed;
            }
            if (samples > 1) {
                throw error(file, tokens.get(0), samples + " evidence samples; infer takes one (split the file)");
            }
            start = 1;
        } else {
            start = 0;
        }
        int n = integer(file, tokens, start, "the number of observed variables");
        if (n < 0) throw error(file, tokens.get(start), "the number of observed variables is " + n + "; it must be at least 0");
        if (n > cardinality.length) {
            throw error(file, tokens.get(start), n + " observed variables, but the model has only " + cardinality.length);
        }
        int k = start + 1;
        for (int a = 0; a < n; a++, k += 2) {
            int v = integer(file, tokens, k, "the variable of observation " + (a + 1));
            int x = integer(file, tokens, k + 1, "the label of observation " + (a + 1) + " (variable " + v + ")");
            if (v < 0 || v >= cardinality.length) {
                throw error(file, tokens.get(k), "observation " + (a + 1) + " names variable " + v + ", outside 0.." + (cardinality.length - 1));
            }
            if (x < 0 || x >= cardinality[v]) {
                throw error(file, tokens.get(k + 1), "observation " + (a + 1) + " gives variable " + v + " label " + x
                        + ", outside 0.." + (cardinality[v] - 1));
            }
            if (observed[v] >= 0 && observed[v] != x) {
                throw error(file, tokens.get(k), "variable " + v + " is observed twice, with labels " + observed[v] + " and " + x);
            }
            observed[v] = x;
        }
        if (k < tokens.size()) {
            throw error(file, tokens.get(k), "unexpected '" + abbreviate(tokens.get(k).text()) + "' after " + n
                    + " observations (is the count wrong?)");
        }
        return observed;
    }

    private static int integer(Path file, List<Token> tokens, int k, String what) {
        if (k >= tokens.size()) {
            int last = tokens.isEmpty() ? 1 : tokens.get(tokens.size() - 1).line();
            throw new BadInputException(file, "file ends early (truncated?) at line " + last + ": expected " + what);
        }
        Token t = tokens.get(k);
        try {
            return Integer.parseInt(t.text());
        } catch (NumberFormatException e) {
            throw error(file, t, "expected " + what + " (an integer), got '" + abbreviate(t.text()) + "'");
        }
    }

    private static BadInputException error(Path file, Token t, String problem) {
        return new BadInputException(file, "line " + t.line() + ": " + problem);
    }

    private static String abbreviate(String s) {
        return s.length() <= 40 ? s : s.substring(0, 37) + "...";
    }
}
