package org.structlr.oracle.fcn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.oracle.ClassOptions;
import org.structlr.oracle.FunctionSpec;

/**
 * fcn's options record and accept only what changes a fit: depth only with arch=unet, dilations
 * only with arch=dilated, the built-in network's options only without an own network, freeze only
 * with one, recovery only with the descent check. One given where it does not apply is refused
 * naming it and the reason; one an older build recorded is left out when read back, so its models
 * and checkpoints still load (the committed horses models are such files).
 */
class FcnOptionsApplyTest {
    @TempDir
    Path tmp;

    static final List<String> ALWAYS = List.of("epochs", "batch", "lr", "descent-check", "weight-decay", "recovery", "net");

    static List<String> keys(FunctionSpec s) {
        return List.copyOf(s.options().values().keySet());
    }

    static String refused(Map<String, String> given) {
        ClassOptions.Refused e = assertThrows(ClassOptions.Refused.class, () -> FunctionSpec.unary("fcn", given), given.toString());
        return e.option() + " | " + e.getMessage();
    }

    @Test
    void onlyTheOptionsThatApplyAreRecorded() throws IOException {
        assertEquals(List.of("epochs", "batch", "arch", "width", "dilations", "lr", "descent-check", "weight-decay", "recovery", "net"),
                keys(FunctionSpec.unary("fcn")), "dilated (the default): no depth, no freeze");
        assertEquals(List.of("epochs", "batch", "arch", "width", "depth", "lr", "descent-check", "weight-decay", "recovery", "net"),
                keys(FunctionSpec.unary("fcn", Map.of("arch", "unet"))), "unet: no dilations");
        assertEquals(List.of("epochs", "batch", "arch", "width", "dilations", "lr", "descent-check", "weight-decay", "net"),
                keys(FunctionSpec.pairwise("fcn", Map.of("descent-check", "false"))), "without the descent check: no recovery");
        Path net = tmp.resolve("net.json");
        Files.writeString(net, OwnNetworkTest.config(3, 2, false).toJson());
        assertEquals(List.of("epochs", "batch", "lr", "descent-check", "weight-decay", "recovery", "net", "freeze"),
                keys(FunctionSpec.unary("fcn", Map.of("net", net.toString()))), "an own network: freeze, not the built-in one's");
    }

    @Test
    void anOptionGivenWhereItDoesNotApplyIsRefusedSayingWhy() throws IOException {
        assertEquals("depth | fcn option 'depth' does not apply: arch is dilated; depth sets the levels of arch=unet",
                refused(Map.of("depth", "3")));
        assertEquals("depth | fcn option 'depth' does not apply: arch is dilated; depth sets the levels of arch=unet",
                refused(Map.of("arch", "dilated", "depth", "2")), "even at its default value");
        assertEquals("dilations | fcn option 'dilations' does not apply: arch is unet; dilations sets the convolutions of arch=dilated",
                refused(Map.of("arch", "unet", "dilations", "1,2")));
        assertTrue(refused(Map.of("freeze", "1")).startsWith("freeze | fcn option 'freeze' does not apply: it keeps layers of an own network"));
        assertEquals("recovery | fcn option 'recovery' does not apply: descent-check is false, so no step is ever halved to grow again",
                refused(Map.of("descent-check", "false", "recovery", "3")));
        Path net = tmp.resolve("net.json");
        Files.writeString(net, OwnNetworkTest.config(3, 2, false).toJson());
        for (String builtIn : List.of("arch=unet", "width=8", "dilations=1", "depth=1")) {
            String[] kv = builtIn.split("=");
            assertEquals(kv[0] + " | fcn option '" + kv[0] + "' does not apply: an own network (net) replaces the built-in one that " + kv[0]
                    + " shapes", refused(Map.of("net", net.toString(), kv[0], kv[1])));
        }
        // the same options where they apply are taken
        assertEquals(3, FunctionSpec.unary("fcn", Map.of("arch", "unet", "depth", "3")).options().get(FcnClass.DEPTH));
        assertEquals(3.0, FunctionSpec.unary("fcn", Map.of("recovery", "3")).options().get(FcnClass.RECOVERY));
        assertEquals(1, FunctionSpec.unary("fcn", Map.of("net", net.toString(), "freeze", "1")).options().get(FcnClass.FREEZE));
    }

    /**
     * On top of recorded values (a resume: the checkpoint's), the recorded ones decide whether a
     * given option applies; recorded options that do not apply are dropped without a word.
     */
    @Test
    void givenOnTopOfRecordedValues() {
        FunctionSpec unet = FunctionSpec.unary("fcn", Map.of("arch", "unet", "depth", "3"));
        assertEquals(unet, FunctionSpec.of("fcn", true, Map.of("depth", "3"), unet.options().texts()), "depth applies to the recorded unet");
        assertEquals("dilations", assertThrows(ClassOptions.Refused.class,
                () -> FunctionSpec.of("fcn", true, Map.of("dilations", "1"), unet.options().texts())).option());
        // arch changed by the given options: the recorded depth no longer applies and is dropped (a resume then refuses the other arch)
        FunctionSpec back = FunctionSpec.of("fcn", true, Map.of("arch", "dilated"), unet.options().texts());
        assertEquals(keys(FunctionSpec.unary("fcn")), keys(back));
    }

    /** Models written before options that do not apply were left out still read back, without them. */
    @Test
    void olderRecordsReadBackWithoutTheOptionsThatDoNotApply() throws IOException {
        ObjectMapper json = new ObjectMapper();
        JsonNode unet = json.readTree(Path.of("models", "horses-unet", "model.json").toFile()).path("settings").path("unaryOptions");
        assertTrue(unet.has("dilations") && unet.has("depth"), "an older record of every option: " + unet);
        FunctionSpec u = FunctionSpec.recorded("fcn", true, unet);
        assertEquals(List.of("epochs", "batch", "arch", "width", "depth", "lr", "descent-check", "weight-decay", "recovery", "net"), keys(u));
        assertEquals(FunctionSpec.unary("fcn", Map.of("arch", "unet", "lr", "0.02")), u);

        JsonNode own = json.readTree(Path.of("models", "horses-unet-72x96", "model.json").toFile()).path("settings").path("unaryOptions");
        assertTrue(own.has("arch") && own.has("depth") && own.has("net"), "an older record beside an own network: " + own);
        FunctionSpec o = FunctionSpec.recorded("fcn", true, own);
        assertEquals(List.of("epochs", "batch", "lr", "descent-check", "weight-decay", "recovery", "net", "freeze"), keys(o));
        assertEquals(own.path("net").asText(), o.options().get(FcnClass.NET).toString());

        // an older dilated record (freeze 0, depth at its default) reads as the dilated spec
        com.fasterxml.jackson.databind.node.ObjectNode dilated = json.valueToTree(FunctionSpec.unary("fcn").options().values());
        dilated.put("depth", 2).put("freeze", 0);
        assertEquals(FunctionSpec.unary("fcn"), FunctionSpec.recorded("fcn", true, dilated));
        assertTrue(ALWAYS.stream().allMatch(k -> FunctionSpec.recorded("fcn", true, dilated).options().values().containsKey(k)));
    }
}
