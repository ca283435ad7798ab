#!/usr/bin/env python3
"""Writes the expected trajectories.jsonl, statistics.json and checkpoint.json of BatchGoldenIT.

The values below are written by hand: what Hermes' batch_runner.py (NousResearch/hermes-agent, see
README.md for the commits) produces for dataset.jsonl when the model answers as BatchGoldenIT.script()
scripts it. Only the serialization is delegated to CPython's json module, called exactly as
batch_runner.py calls it:
  batch_N.jsonl / trajectories.jsonl  json.dumps(entry, ensure_ascii=False) + "\\n"
  statistics.json                     json.dump(final_stats, f, indent=2, ensure_ascii=False)
  checkpoint.json                     utils.atomic_json_write: json.dumps(data, indent=2, ensure_ascii=False)
Volatile values are placeholders (the test replaces them in our output too): TIMESTAMP,
duration_seconds 0.0, the terminal tool's backend sentence (BACKEND) and write_file's
resolved_path (RESOLVED_PATH, a temporary directory).

Run from the repository root: python3 distribution/src/test/resources/batch/golden/make_golden.py
"""
import json
from pathlib import Path

HERE = Path(__file__).parent
TOOLSETS = Path("plugins/toolsets-hermes/src/main/resources/dev/caduceus/plugin/toolsets/toolsets.json")

# The tool definitions the agent had (terminal_only -> terminal + file), as this installation describes
# them, sorted by name as Hermes' get_tool_definitions() sorts them; "required": None as
# format_tools_for_system_message() adds it.
tools = [dict(t, required=None) for t in json.loads((HERE / "tools.json").read_text(encoding="utf-8"))]
SYSTEM = (
    "You are a function calling AI model. You are provided with function signatures within <tools> </tools> XML tags. "
    "You may call one or more functions to assist with the user query. If available tools are not relevant in assisting "
    "with user query, just respond in natural conversational language. Don't make assumptions about what values to plug "
    "into functions. After calling & executing the functions, you will be provided with function results within "
    "<tool_response> </tool_response> XML tags. Here are the available tools:\n"
    f"<tools>\n{json.dumps(tools, ensure_ascii=False)}\n</tools>\n"
    "For each function call return a JSON object, with the following pydantic model json schema for each:\n"
    "{'title': 'FunctionCall', 'type': 'object', 'properties': {'name': {'title': 'Name', 'type': 'string'}, "
    "'arguments': {'title': 'Arguments', 'type': 'object'}}, 'required': ['name', 'arguments']}\n"
    "Each function call should be enclosed within <tool_call> </tool_call> XML tags.\n"
    "Example:\n<tool_call>\n{'name': <function-name>,'arguments': <args-dict>}\n</tool_call>"
)

prompts = [json.loads(line)["prompt"] for line in (HERE / "dataset.jsonl").read_text(encoding="utf-8").splitlines()]


def call(name, arguments):
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False) + "\n</tool_call>"


def response(call_id, name, content):
    return ("<tool_response>\n" + json.dumps({"tool_call_id": call_id, "name": name, "content": content},
                                              ensure_ascii=False) + "\n</tool_response>")


# The gpt/tool turns of each prompt after system + human. build_assistant_message() moved every inline
# block into "reasoning" and stripped the content; convert_to_trajectory_format() renders
# "<think>\n{reasoning}\n</think>\n" + content.
turns = {}
index = 0
for tag in ["think", "thinking", "thought", "reasoning", "REASONING_SCRATCHPAD"]:
    for spelled in [tag.lower(), tag.upper(), tag[0].upper() + tag[1:].lower()]:
        turns[index] = [("gpt", f"<think>\nPlan with {spelled}.\n</think>\nAnswer with {spelled}.")]
        index += 1
turns[15] = [("gpt", "<think>\nNative reasoning, kept as sent.\n</think>\nNative answer.")]
turns[16] = [("gpt", "<think>\nMid-answer thought.\n</think>\nIntro.  Outro.")]
# 17: no reasoning in any turn -> discarded, no trajectory
turns[18] = [
    ("gpt", "<think>\nLook around first.\n</think>\n" + call("read_file", {"path": "missing.txt"}) + "\n"
     + call("terminal", {"command": "echo hi"})),
    ("tool", response("call_1", "read_file", {"error": "File not found: missing.txt", "similar_files": []}) + "\n"
     + response("call_2", "terminal", {"output": "hi", "exit_code": 0, "error": None})),
    ("gpt", "<think>\nNow write.\n</think>\n" + call("terminal", {"command": "printf 'a\\tb'"}) + "\n"
     + call("write_file", {"path": "notes.txt", "content": "grüße ✓"})),
    ("tool", response("call_3", "terminal", {"output": "a\tb", "exit_code": 0, "error": None}) + "\n"
     + response("call_4", "write_file", {"bytes_written": 11, "dirs_created": False, "resolved_path": "RESOLVED_PATH"})),
    ("gpt", "<think>\nRead it twice.\n</think>\n" + call("read_file", {"path": "notes.txt"}) + "\n"
     + call("read_file", {"path": "notes.txt"})),
    ("tool", response("call_5", "read_file", {"content": "1|grüße ✓", "total_lines": 1, "file_size": 11, "truncated": False})
     + "\n" + response("call_6", "read_file", {"content": "1|grüße ✓", "total_lines": 1, "file_size": 11, "truncated": False})),
    ("gpt", "<think>\nAll done.\n</think>\nWrote and read notes.txt."),
]
turns[19] = [("gpt", "<think>\nÜnïcödé thinking ✓ \u0001.\n</think>\nAntwort: grüße 日本 \u001f \"quoted\" \\ tab\t.")]
api_calls = {i: sum(1 for t in turns[i] if t[0] == "gpt") for i in turns}
used = {18: {"read_file": {"count": 3, "success": 2, "failure": 1}, "terminal": {"count": 2, "success": 2, "failure": 0},
             "write_file": {"count": 1, "success": 1, "failure": 0}}}

# _normalize_tool_stats(): every name of the tool registry (Hermes iterates a set; the issue asks for
# sorted), plus, as Caduceus' documented addition, our own tools Hermes lacks ("process").
hermes_names = json.loads(TOOLSETS.read_text(encoding="utf-8"))["toolStatsSchemas"][0]["toolNames"]
columns = sorted(set(hermes_names) | {"patch", "process", "read_file", "search_files", "terminal", "write_file",
                                      "web_search", "web_extract", "memory"})

with open(HERE / "trajectories.jsonl", "w", encoding="utf-8", newline="\n") as out:
    for i in sorted(turns):
        stats = {name: dict(used.get(i, {}).get(name, {"count": 0, "success": 0, "failure": 0})) for name in columns}
        entry = {
            "prompt_index": i,
            "conversations": [{"from": "system", "value": SYSTEM}, {"from": "human", "value": prompts[i]}]
                             + [{"from": f, "value": v} for f, v in turns[i]],
            "metadata": {"batch_num": i // 10, "timestamp": "TIMESTAMP", "model": "scripted-model"},
            "completed": True,
            "partial": False,
            "api_calls": api_calls[i],
            "toolsets_used": ["terminal", "file"],
            "tool_stats": stats,
            "tool_error_counts": {name: s["failure"] for name, s in stats.items()},
        }
        out.write(json.dumps(entry, ensure_ascii=False) + "\n")

final_stats = {
    "run_name": "golden",
    "distribution": "terminal_only",
    "total_prompts": 20,
    "total_batches": 2,
    "batch_size": 10,
    "model": "scripted-model",
    "completed_at": "TIMESTAMP",
    "duration_seconds": 0.0,
    # insertion order of first use, which for this dataset is also the order by count
    "tool_statistics": {
        "read_file": {"count": 3, "success": 2, "failure": 1, "success_rate": round(2 / 3 * 100, 2),
                      "failure_rate": round(1 / 3 * 100, 2)},
        "terminal": {"count": 2, "success": 2, "failure": 0, "success_rate": round(2 / 2 * 100, 2),
                     "failure_rate": round(0 / 2 * 100, 2)},
        "write_file": {"count": 1, "success": 1, "failure": 0, "success_rate": round(1 / 1 * 100, 2),
                       "failure_rate": round(0 / 1 * 100, 2)},
    },
    # discarded prompt 17 contributes nothing: 15 + 1 + 1 + 4 + 1 assistant turns, all with reasoning
    "reasoning_statistics": {"total_assistant_turns": 22, "turns_with_reasoning": 22, "turns_without_reasoning": 0},
}
with open(HERE / "statistics.json", "w", encoding="utf-8", newline="\n") as f:
    json.dump(final_stats, f, indent=2, ensure_ascii=False)

checkpoint = {
    "run_name": "golden",
    "completed_prompts": sorted(range(20)),  # the discarded prompt 17 included, as _process_batch_worker does
    "batch_stats": {
        "0": {"processed": 10, "skipped": 0, "discarded_no_reasoning": 0},
        "1": {"processed": 10, "skipped": 0, "discarded_no_reasoning": 1},
    },
    "last_updated": "TIMESTAMP",
}
with open(HERE / "checkpoint.json", "w", encoding="utf-8", newline="\n") as f:
    f.write(json.dumps(checkpoint, indent=2, ensure_ascii=False))
