package org.structlr.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClassTableTest {
    @TempDir
    Path tmp;

    @Test
    void vocPaletteColours() {
        // Pascal VOC 2012's palette: background, aeroplane, bicycle, ..., person (15), and 255 (void)
        assertEquals(0x000000, ClassTable.vocColor(0));
        assertEquals(0x800000, ClassTable.vocColor(1));
        assertEquals(0x008000, ClassTable.vocColor(2));
        assertEquals(0x808000, ClassTable.vocColor(3));
        assertEquals(0xC08080, ClassTable.vocColor(15));
        assertEquals(0x004080, ClassTable.vocColor(20));   // tvmonitor (0, 64, 128)
        assertEquals(ClassTable.DEFAULT_VOID_COLOR, ClassTable.vocColor(255));
    }

    @Test
    void readsBothJsonFormsAndRoundTrips() throws IOException {
        Path obj = tmp.resolve("obj.json"), list = tmp.resolve("list.json");
        Files.writeString(obj, """
                {"classes": [{"name": "road", "index": 1, "color": "#804080", "values": [7]},
                             {"name": "none", "index": 0, "color": [0, 0, 0], "values": [0, 1]}],
                 "void": {"color": [1, 2, 3], "values": [255, 3]}}""");
        Files.writeString(list, """
                [{"name": "none", "index": 0, "color": [0, 0, 0], "values": [0, 1]},
                 {"name": "road", "index": 1, "color": [128, 64, 128], "values": [7]},
                 {"void": true, "color": "#010203", "values": [255, 3]}]""");
        ClassTable a = ClassTable.read(obj), b = ClassTable.read(list);
        assertEquals(a, b);
        assertEquals("road", a.name(1));
        assertEquals(1, a.labelOfValue(7));
        assertEquals(0, a.labelOfValue(1));
        assertEquals(Example.VOID, a.labelOfValue(3));
        assertNull(a.labelOfValue(2), "a value in no list stands for nothing");
        assertEquals(1, a.labelOfColor(0x804080));
        assertEquals(Example.VOID, a.labelOfColor(0x010203));
        assertEquals(a, ClassTable.fromObject(a.toMap(), "again"));
    }

    @Test
    void numberedTableUsesIndicesAsValues() {
        ClassTable t = ClassTable.numbered(21, 255);
        assertEquals(20, t.labelOfValue(20));
        assertEquals(Example.VOID, t.labelOfValue(255));
        assertNull(t.labelOfValue(21));
        assertEquals("7", t.name(7));
    }

    @Test
    void badTablesNameTheFileAndTheProblem() throws IOException {
        String[][] cases = {
                {"[{\"name\": \"a\", \"index\": 0}, {\"name\": \"b\", \"index\": 2}]", "index 1 is missing"},
                {"[{\"name\": \"a\", \"index\": 0}, {\"name\": \"b\", \"index\": 0}]", "index 0 is repeated"},
                {"[{\"name\": \"a\", \"index\": 0, \"color\": [1,1,1]}, {\"name\": \"b\", \"index\": 1, \"color\": [1,1,1]}]", "same colour"},
                {"[{\"name\": \"a\", \"index\": 0}, {\"name\": \"a\", \"index\": 1}]", "same name"},
                {"[{\"name\": \"a\", \"index\": 0, \"values\": [5]}, {\"name\": \"b\", \"index\": 1, \"values\": [5]}]", "mask value 5 stands for both"},
                {"[{\"name\": \"a\", \"index\": 0, \"color\": [1, 300, 1]}, {\"name\": \"b\", \"index\": 1}]", "neither [r, g, b]"},
                {"[{\"name\": \"a\", \"index\": 0}]", "at least 2 classes"},
                {"{\"classes\": 3}", "expected"},
                {"[{\"name\": \"a\"}, {\"name\": \"b\", \"index\": 1}]", "no integer 'index'"},
                {"not json", "cannot be read as JSON"},
        };
        for (int k = 0; k < cases.length; k++) {
            Path f = tmp.resolve("bad" + k + ".json");
            Files.writeString(f, cases[k][0]);
            BadInputException e = assertThrows(BadInputException.class, () -> ClassTable.read(f));
            assertTrue(e.getMessage().contains(f.toString()) && e.getMessage().contains(cases[k][1]), cases[k][1] + ": " + e.getMessage());
        }
        assertTrue(assertThrows(BadInputException.class, () -> ClassTable.read(tmp.resolve("missing.json"))).getMessage().contains("no such"));
    }

    @Test
    void mustHaveTheDataSetsLabelCount() {
        BadInputException e = assertThrows(BadInputException.class, () -> ClassTable.numbered(3, 255).requireClasses(4, "D/dataset.json"));
        assertTrue(e.getMessage().contains("3 classes but the labels are 0..3"), e.getMessage());
    }
}
