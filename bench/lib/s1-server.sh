# Sourced by bench scripts that load one server with S1's chat request through wrk (steady-ab,
# profile-turn). Needs ROOT (the checkout) and WORK (a temporary directory) set; exports JAVA_HOME.
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"

# s1_upstream: writes WORK/post.lua (S1's request for wrk) and starts the zero-delay scripted upstream;
# sets UPSTREAM (its URL) and UPSTREAM_PID.
s1_upstream() {
  cat > "$WORK/post.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"model":"hermes-agent","messages":[{"role":"user","content":"Say ok"}]}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer bench-key-0123456789abcdef"
LUA
  local kit cp
  kit=$(ls "$ROOT"/platform/testkit/target/caduceus-platform-testkit-*.jar | head -1)
  cp="$kit:$(ls "$ROOT"/distribution/target/caduceus/lib/*.jar | tr '\n' ':')"
  "$JAVA_HOME/bin/java" -cp "$cp" "$ROOT/bench/src/UpstreamOnly.java" > "$WORK/upstream" 2>&1 &
  UPSTREAM_PID=$!
  for _ in $(seq 1 300); do grep -q http "$WORK/upstream" 2>/dev/null && break; sleep 0.1; done
  UPSTREAM=$(grep -o "http://[^ ]*" "$WORK/upstream" | head -1)
}

# s1_serve DIST HOME JAVA_OPTS: starts DIST's server on the upstream with state in HOME; sets
# SERVER_PID and SERVER_URL, or exits 2 with the server's output when it does not start.
s1_serve() {
  CADUCEUS_HOME=$2 API_SERVER_PORT=0 API_SERVER_KEY=bench-key-0123456789abcdef OPENAI_BASE_URL=$UPSTREAM \
    CADUCEUS_MODEL=bench-model CADUCEUS__MODEL__HEALTH_PROBE=false CADUCEUS_LOG_LEVEL=warn \
    CADUCEUS__SERVER__MAX_IDLE_CONNECTIONS_PER_CLIENT=0 CADUCEUS__SERVER__MAX_CONCURRENT_RUNS=0 JAVA_OPTS="$3" \
    "$1/bin/caduceus" serve > "$2/out" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 300); do grep -q "listening on" "$2/out" && break; sleep 0.1; done
  SERVER_URL=$(grep -o "listening on http://[^ ]*" "$2/out" | head -1 | sed 's/listening on //')
  [ -n "$SERVER_URL" ] || { echo "$1 did not start:" >&2; cat "$2/out" >&2; exit 2; }
}

# s1_load SECONDS: wrk with S1's request at CONNS connections (default 64) on the started server.
s1_load() {
  wrk -t2 -c"${CONNS:-64}" -d"$1s" -s "$WORK/post.lua" "$SERVER_URL/v1/chat/completions"
}
