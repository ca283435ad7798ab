package dev.caduceus.plugin.terminal;

/** The JSON Schemas of the two tools (Hermes-compatible names and fields). Constants only. */
final class Schemas {
    private Schemas() {}

    static final String TERMINAL = """
            {"type":"object","required":["command"],"properties":{
              "command":{"type":"string","description":"Shell command to run. The working directory and exported variables persist between calls."},
              "background":{"type":"boolean","default":false,"description":"Run without waiting; manage it with the process tool. Use for servers and long jobs."},
              "timeout":{"type":"integer","minimum":1,"description":"Max seconds (default 180; foreground max 600)."},
              "workdir":{"type":"string","description":"Directory for this command only (inside the workspace)."},
              "pty":{"type":"boolean","default":false,"description":"Accepted for compatibility; commands run without a terminal."}}}
            """;

    static final String PROCESS = """
            {"type":"object","required":["action"],"properties":{
              "action":{"type":"string","enum":["list","poll","log","wait","kill","write","submit","close"]},
              "session_id":{"type":"string","description":"proc_… id; required for every action except list"},
              "data":{"type":"string","description":"text for write/submit"},
              "timeout":{"type":"integer","minimum":1,"description":"max seconds to block for wait (default 60, max 600)"},
              "offset":{"type":"integer","description":"first line for log (default: last 200 lines)"},
              "limit":{"type":"integer","minimum":1,"description":"max lines for log (default 200)"}}}
            """;
}
