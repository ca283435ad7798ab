package dev.caduceus.platform.runtime.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

class ArgumentCoercionTest {
    static final ObjectMapper JSON = new ObjectMapper();

    static final String SCHEMA = """
            {"type":"object","properties":{
              "count":{"type":"integer"}, "ratio":{"type":"number"}, "flag":{"type":"boolean"},
              "paths":{"type":"array","items":{"type":"string"}},
              "opts":{"type":"object","properties":{"depth":{"type":"integer"}}},
              "limit":{"type":["integer","null"]}, "name":{"type":"string"},
              "nested":{"type":"array","items":{"type":"object","properties":{"n":{"type":"integer"}}}}}}
            """;

    private static String coerce(String args) throws Exception {
        return ArgumentCoercion.coerce((ObjectNode) JSON.readTree(args), JSON.readTree(SCHEMA)).toString();
    }

    @Test
    void numericAndBooleanStringsBecomeTheirTypes() throws Exception {
        assertEquals("{\"count\":42,\"ratio\":0.5,\"flag\":true}", coerce("{\"count\":\"42\",\"ratio\":\"0.5\",\"flag\":\"TRUE\"}"));
    }

    @Test
    void anIntegerWithDecimalsAndInfinityStayStrings() throws Exception {
        assertEquals("{\"count\":\"4.5\",\"ratio\":\"inf\"}", coerce("{\"count\":\"4.5\",\"ratio\":\"inf\"}"));
    }

    @Test
    void jsonStringsBecomeContainersAndBareValuesAreWrapped() throws Exception {
        assertEquals("{\"paths\":[\"a\",\"b\"],\"opts\":{\"depth\":3}}",
                coerce("{\"paths\":\"[\\\"a\\\",\\\"b\\\"]\",\"opts\":\"{\\\"depth\\\":\\\"3\\\"}\"}"));
        assertEquals("{\"paths\":[\"only\"]}", coerce("{\"paths\":\"only\"}"));
        assertEquals("{\"opts\":\"{broken\"}", coerce("{\"opts\":\"{broken\"}"), "kept on failure");
    }

    @Test
    void nullForNullableTypesAndUnionsInOrder() throws Exception {
        assertEquals("{\"limit\":null}", coerce("{\"limit\":\"null\"}"));
        assertEquals("{\"limit\":7}", coerce("{\"limit\":\"7\"}"));
        assertEquals("{\"name\":\"12\"}", coerce("{\"name\":12}"));
    }

    @Test
    void nestedJsonInsideArraysIsParsedWhereAContainerIsExpected() throws Exception {
        assertEquals("{\"nested\":[{\"n\":1},{\"n\":2}]}", coerce("{\"nested\":[\"{\\\"n\\\":\\\"1\\\"}\",{\"n\":\"2\"}]}"));
    }

    @Test
    void unknownPropertiesAndTheOriginalAreLeftAlone() throws Exception {
        var original = (ObjectNode) JSON.readTree("{\"count\":\"1\",\"other\":\"x\"}");
        JsonNode coerced = ArgumentCoercion.coerce(original, JSON.readTree(SCHEMA));
        assertEquals("{\"count\":1,\"other\":\"x\"}", coerced.toString());
        assertEquals("{\"count\":\"1\",\"other\":\"x\"}", original.toString());
    }
}
