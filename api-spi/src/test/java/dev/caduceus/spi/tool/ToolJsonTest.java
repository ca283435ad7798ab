package dev.caduceus.spi.tool;

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
}
