package org.structlr.learn;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import org.structlr.oracle.BoostOracle;
import org.structlr.oracle.CnnOracle;
import org.structlr.oracle.ConstantOracle;
import org.structlr.oracle.FcnOracle;
import org.structlr.oracle.LinearOracle;
import org.structlr.oracle.MlpOracle;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ZeroOracle;

/** The function classes a factor type can learn, by the names the CLI uses. */
public enum OracleKind {
    ZERO, CONST, LINEAR, MLP, BOOST, CNN, FCN;

    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * A fresh oracle; the MLP takes the paper's step size for unary (0.25) or pairwise (0.05) types.
     * {@code seed} fixes every random choice the oracle makes (the MLP's initial weights and
     * shuffling, XGBoost's seed); the linear and constant oracles make none.
     *
     * @throws IllegalArgumentException for CNN with {@code unary = false}: the convolutional class reads
     *         k x k RGB patches, which edge features are not
     */
    public Oracle create(boolean unary, long seed, int threads) {
        switch (this) {
            case ZERO: return new ZeroOracle();
            case CONST: return new ConstantOracle();
            case LINEAR: return new LinearOracle();
            case MLP: return (unary ? MlpOracle.unary() : MlpOracle.pairwise()).withSeed(seed);
            case BOOST: return new BoostOracle(Math.max(1, threads), seed);
            case CNN:
                if (!unary) throw new IllegalArgumentException("cnn is a unary function class for patch features");
                return CnnOracle.unary().withSeed(seed);
            case FCN: return (unary ? FcnOracle.unary() : FcnOracle.pairwise()).withSeed(seed);
            default: throw new AssertionError(this);
        }
    }

    public static OracleKind parse(String s) {
        for (OracleKind k : values()) if (k.cliName().equals(s.trim().toLowerCase(Locale.ROOT))) return k;
        throw new IllegalArgumentException("unknown function class '" + s + "'; expected one of " + names());
    }

    public static String names() {
        return Arrays.stream(values()).map(OracleKind::cliName).collect(Collectors.joining(", "));
    }
}
