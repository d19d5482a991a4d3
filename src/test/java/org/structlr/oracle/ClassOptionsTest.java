package org.structlr.oracle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Declared options: reading, checking, defaults per role, recording and reading back, comparing. */
class ClassOptionsTest {

    static final ClassOption<Integer> COUNT = ClassOption.integer("count", 3, 1, "how many");
    static final ClassOption<Double> RATE = ClassOption.real("rate", 0.5, 0.25, 0, true, "a step");
    static final ClassOption<Boolean> CHECK = ClassOption.flag("check", true, "check it");
    static final ClassOption<String> MODE = ClassOption.choice("mode", "fast", List.of("fast", "exact"), "how");
    static final ClassOption<List<Integer>> SIZES = ClassOption.integers("sizes", List.of(1, 2), 1, 4, "sizes");

    /** A class with one option of every kind. */
    static final class Options implements FunctionClass {
        @Override public String name() { return "opts"; }
        @Override public String description() { return "a class with options"; }
        @Override public List<ClassOption<?>> options() { return List.of(COUNT, RATE, CHECK, MODE, SIZES); }
        @Override public Oracle create(Context c) { throw new UnsupportedOperationException(); }
        @Override public Set<String> kinds() { return Set.of("opts"); }
        @Override public ScoreFunction load(Path dir, JsonNode meta) { throw new UnsupportedOperationException(); }
        @Override public com.fasterxml.jackson.databind.node.ObjectNode export(ScoreFunction f, ExportTarget t) { throw new UnsupportedOperationException(); }
    }

    static final FunctionClass C = new Options();

    @Test
    void givenValuesAreReadAndTheOthersTakeTheirRolesDefault() {
        ClassOptions u = ClassOptions.of(C, true, Map.of("count", " 7 ", "mode", "EXACT", "sizes", "4,1,2"));
        assertEquals(7, u.get(COUNT));
        assertEquals(0.5, u.get(RATE));
        assertEquals(true, u.get(CHECK));
        assertEquals("exact", u.get(MODE));
        assertEquals(List.of(4, 1, 2), u.get(SIZES));
        ClassOptions p = ClassOptions.of(C, false, Map.of("check", "false"));
        assertEquals(0.25, p.get(RATE), "the pairwise default");
        assertEquals(false, p.get(CHECK));
        assertEquals(List.of("count", "rate", "check", "mode", "sizes"), List.copyOf(u.values().keySet()), "declaration order");
        assertEquals("count=7, rate=0.5, check=true, mode=exact, sizes=4,1,2", u.toString());
        // no class: every option at its default for the role
        assertEquals(0.25, ClassOptions.none(false).get(RATE));
        assertEquals(3, ClassOptions.none(true).get(COUNT));
        assertTrue(ClassOptions.none(true).values().isEmpty());
    }

    @Test
    void badNamesAndValuesAreOneErrorNamingTheClassAndOption() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClassOptions.of(C, true, Map.of("cuont", "2")));
        assertTrue(e.getMessage().startsWith("opts has no option 'cuont'; its options:\n  count (an integer >= 1; default 3): how many\n"
                + "  rate (a number > 0; default 0.5 unary, 0.25 pairwise): a step\n"), e.getMessage());
        Map<String, String> bad = new LinkedHashMap<>();
        bad.put("count", "0");
        assertEquals("opts option 'count': must be at least 1, got 0", message(bad));
        assertEquals("opts option 'count': '2.5' is not an integer", message(Map.of("count", "2.5")));
        assertEquals("opts option 'count': needs a value (an integer >= 1)", message(Map.of("count", "")));
        assertEquals("opts option 'rate': must be a finite number > 0, got 0", message(Map.of("rate", "0")));
        assertEquals("opts option 'rate': must be a finite number > 0, got NaN", message(Map.of("rate", "NaN")));
        assertEquals("opts option 'rate': 'fast' is not a number", message(Map.of("rate", "fast")));
        assertEquals("opts option 'check': must be true or false, got 'yes'", message(Map.of("check", "yes")));
        assertEquals("opts option 'mode': must be one of fast, exact, got 'slow'", message(Map.of("mode", "slow")));
        assertEquals("opts option 'sizes': every value must be at least 1, got 0", message(Map.of("sizes", "1,0")));
        assertEquals("opts option 'sizes': at most 4 values, got 5", message(Map.of("sizes", "1,1,1,1,1")));
        assertEquals("opts option 'sizes': '' is not an integer", message(Map.of("sizes", "1,,2")));
        // an option the class does not declare, read from its options: a programming error
        ClassOption<Integer> other = ClassOption.integer("other", 1, 0, "not declared");
        assertThrows(IllegalStateException.class, () -> ClassOptions.defaults(C, true).get(other));
    }

    private static String message(Map<String, String> given) {
        return assertThrows(IllegalArgumentException.class, () -> ClassOptions.of(C, true, given)).getMessage();
    }

    /** What a model or checkpoint records (JSON) reads back to equal options; missing keys are defaults; differences are named. */
    @Test
    void recordedValuesReadBackEqualAndDifferencesAreNamed() throws Exception {
        ClassOptions given = ClassOptions.of(C, true, Map.of("count", "9", "rate", "0.1", "check", "false", "sizes", "3,5"));
        ObjectMapper json = new ObjectMapper();
        String text = json.writeValueAsString(given.values());
        assertEquals("{\"count\":9,\"rate\":0.1,\"check\":false,\"mode\":\"fast\",\"sizes\":[3,5]}", text);
        ClassOptions back = ClassOptions.fromJson(C, true, json.readTree(text));
        assertEquals(given, back);
        assertEquals(given.hashCode(), back.hashCode());
        assertNull(given.difference(back));
        assertEquals(ClassOptions.defaults(C, true), ClassOptions.fromJson(C, true, null), "nothing recorded: the defaults");
        assertEquals(ClassOptions.defaults(C, true), ClassOptions.fromJson(C, true, json.readTree("{}")));
        ClassOptions other = ClassOptions.of(C, true, Map.of("count", "9", "rate", "0.2", "sizes", "3,5"));
        assertNotEquals(given, other);
        assertEquals("rate: 0.1 vs 0.2; check: false vs true", given.difference(other));
        assertNotEquals(ClassOptions.defaults(C, true), ClassOptions.defaults(C, false), "roles differ");
        assertThrows(IllegalArgumentException.class, () -> ClassOptions.fromJson(C, true, json.readTree("{\"speed\": 1}")));
        assertThrows(IllegalArgumentException.class, () -> ClassOptions.fromJson(C, true, json.readTree("[1]")));

        // serialisable (the Spark learner ships oracles made from them)
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(given);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            assertEquals(given, in.readObject());
        }
    }

    @Test
    void aContextCarriesOptionsOfItsOwnRole() {
        ClassOptions unary = ClassOptions.defaults(C, true);
        assertEquals(unary, new FunctionClass.Context(true, 2, 1, 1, unary).options());
        assertThrows(IllegalArgumentException.class, () -> new FunctionClass.Context(false, 2, 1, 1, unary));
        assertEquals(ClassOptions.none(false), new FunctionClass.Context(false, 2, 1, 1).options());
    }

    /** The built-in classes that replaced JVM properties declare their options, and a spec checks them. */
    @Test
    void builtInSpecsCheckTheirOptions() {
        FunctionSpec fcn = FunctionSpec.unary("FCN", Map.of("epochs", "2", "dilations", "1,2"));
        assertEquals("fcn", fcn.name());
        assertEquals(2, fcn.options().values().get("epochs"));
        assertEquals(List.of(1, 2), fcn.options().values().get("dilations"));
        assertEquals("newton", FunctionSpec.pairwise("boost").options().values().get("hessian"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FunctionSpec.pairwise("boost", Map.of("hessian", "half")));
        assertEquals("boost option 'hessian': must be one of newton, xgboost, got 'half'", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> FunctionSpec.unary("forest"));
        assertEquals("zero", FunctionSpec.unary("zero").toString());
    }

    /** The other built-ins' options reach their oracles (whose descriptions name every setting), and no option gives the defaults. */
    @Test
    void builtInOptionsReachTheirOracles() {
        assertEquals(new org.structlr.oracle.nn.MlpOracle(0.1, 8, 3, 50, 0.5, 4).describe(), FunctionSpec.pairwise("mlp",
                Map.of("step", "0.1", "hidden", "8", "epochs", "3", "batch", "50", "momentum", "0.5")).create(2, 4, 1).describe());
        assertEquals(org.structlr.oracle.nn.MlpOracle.pairwise().describe(), FunctionSpec.pairwise("mlp").create(2, 4, 1).describe());
        assertEquals(org.structlr.oracle.nn.MlpOracle.unary().describe(), FunctionSpec.unary("mlp").create(2, 4, 1).describe());
        assertEquals(new org.structlr.oracle.linear.LinearOracle(1e-3, 0, 7, 1, 2).describe(), FunctionSpec.unary("linear",
                Map.of("tolerance", "1e-3", "rel-decrease", "0", "max-iterations", "7")).create(2, 1, 2).describe());
        assertEquals(new org.structlr.oracle.linear.LinearOracle(2).describe(), FunctionSpec.unary("linear").create(2, 1, 2).describe());
        assertEquals("mlp option 'momentum': must be at least 0 and below 1, got 1",
                assertThrows(IllegalArgumentException.class, () -> FunctionSpec.unary("mlp", Map.of("momentum", "1"))).getMessage());
    }
}
