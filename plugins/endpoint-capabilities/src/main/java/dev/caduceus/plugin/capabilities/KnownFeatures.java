package dev.caduceus.plugin.capabilities;

import java.util.List;

/**
 * Every boolean feature flag of the Hermes capabilities document. Each reads {@code false} unless a
 * started endpoint family contributes it, so a disabled family's features read {@code false}.
 */
final class KnownFeatures {
    private KnownFeatures() {}

    static final List<String> FLAGS = List.of(
            "chat_completions", "chat_completions_streaming", "responses_api", "responses_streaming",
            "run_submission", "run_status", "run_events_sse", "run_stop", "run_approval_response", "run_steer",
            "tool_progress_events", "approval_events", "cors", "model_options", "session_resources",
            "session_chat", "session_chat_streaming", "session_fork", "session_model_lock", "skills_api",
            "admin_config_rw", "memory_write_api", "audio_api", "realtime_voice", "reasoning_streaming",
            "jobs_admin", "run_list", "run_events_resume", "responses_event_replay", "responses_input_items",
            "mcp_server");
}
