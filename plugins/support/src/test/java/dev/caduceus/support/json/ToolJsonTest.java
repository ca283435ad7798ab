package dev.caduceus.support.json;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class ToolJsonTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void compactUsesPythonSeparatorsAndKeepsNonAscii() throws Exception {
        var node = JSON.readTree("{\"output\":\"héllo \\\"x\\\"\\n\",\"exit_code\":0,\"error\":null,\"list\":[1,2.5,true],\"empty\":{}}");
        assertEquals("{\"output\": \"héllo \\\"x\\\"\\n\", \"exit_code\": 0, \"error\": null, \"list\": [1, 2.5, true], \"empty\": {}}",
                ToolJson.compact(node));
    }

    @Test
    void indentedMatchesPythonIndentTwo() throws Exception {
        var node = JSON.readTree("{\"success\":true,\"data\":{\"web\":[{\"title\":\"T\"}],\"none\":[]}}");
        assertEquals("""
                {
                  "success": true,
                  "data": {
                    "web": [
                      {
                        "title": "T"
                      }
                    ],
                    "none": []
                  }
                }""", ToolJson.indented(node));
    }

    @Test
    void controlCharactersAreEscapedLikePython() throws Exception {
        assertEquals("\"a\\u0001b\"", ToolJson.compact(JSON.getNodeFactory().textNode("a\u0001b")));
    }

    @Test
    void everyEscapeAtTheStartTheEndAndBetweenPlainRuns() {
        var text = "\"start\\ mid\ttab\r\n\b\f\u001fé€😀 end\"";
        assertEquals("\"\\\"start\\\\ mid\\ttab\\r\\n\\b\\f\\u001fé€😀 end\\\"\"",
                ToolJson.compact(JSON.getNodeFactory().textNode(text)));
        assertEquals("\"\"", ToolJson.compact(JSON.getNodeFactory().textNode("")));
    }

    @Test
    void aPrewrittenPartIsCopiedAsItWasWrittenWhereverItIsPlaced() throws Exception {
        var part = JSON.readTree("{\"from\":\"system\",\"value\":\"say \\\"hi\\\"\\n\"}");
        var shared = ToolJson.prewritten(part);
        var line = JSON.createObjectNode().put("n", 1);
        line.putArray("conversations").add(shared).add(JSON.createObjectNode().put("from", "human"));
        var whole = JSON.createObjectNode().put("n", 1);
        whole.putArray("conversations").add(part).add(JSON.createObjectNode().put("from", "human"));
        assertEquals(ToolJson.compact(whole), ToolJson.compact(line));
        assertEquals("{\"n\": 1, \"conversations\": [{\"from\": \"system\", \"value\": \"say \\\"hi\\\"\\n\"}, "
                + "{\"from\": \"human\"}]}", ToolJson.compact(line));
    }

    @Test
    void floatsAreWrittenAsPythonReprWritesThem() {
        // expected values: python3 -c 'print(repr(x))' for each x
        assertEquals("100.0", ToolJson.pythonFloat(100.0));
        assertEquals("66.67", ToolJson.pythonFloat(66.67));
        assertEquals("0.0001", ToolJson.pythonFloat(1e-4));
        assertEquals("1.5e-05", ToolJson.pythonFloat(1.5e-5));
        assertEquals("1234567.0", ToolJson.pythonFloat(1234567.0));
        assertEquals("1e+16", ToolJson.pythonFloat(1e16));
        assertEquals("9999999999999998.0", ToolJson.pythonFloat(9999999999999998.0));
        assertEquals("-2.5e+20", ToolJson.pythonFloat(-2.5e20));
        assertEquals("0.1", ToolJson.pythonFloat(0.1));
        assertEquals("-0.0", ToolJson.pythonFloat(-0.0));
        assertEquals("[1.0, 0.30000000000000004]", ToolJson.compact(JSON.valueToTree(new double[] {1.0, 0.1 + 0.2})));
    }
}
