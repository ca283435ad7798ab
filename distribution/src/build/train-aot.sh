#!/bin/sh
# Builds the assembled distribution's ahead-of-time cache, lib/caduceus.aot (JDK 25+, JEP 483/514):
# starts `bin/caduceus serve` once with CADUCEUS_AOT=train on a scratch home, waits until it listens,
# asks /health and /v1/capabilities, runs a first chat turn, streamed and not, against a stand-in model
# (TrainingUpstream.java, the JDK alone), and stops it; the JVM writes the cache of the classes it
# loaded and linked at exit, the first turn's included (a turn's classes loaded from the cache instead
# of the jars: the first turn after a start comes sooner).
# The launcher uses the cache when it exists and the Java running Caduceus is 25 or newer; a cache
# made for another folder or Java is replaced by one the launcher records in its place at the next
# serve. Never fails the build: without JDK 25, or if training goes wrong, there is simply no cache.
# Usage: train-aot.sh DIST_DIR
set -u
DIST=$1
JAVA="${JAVA_HOME:-}/bin/java"
[ -x "$JAVA" ] || JAVA=$(command -v java || true)
[ -n "$JAVA" ] || { echo "AOT cache: skipped (no java)"; exit 0; }
major=$("$JAVA" -version 2>&1 | awk -F'"' '/version/ { split($2, v, "."); print (v[1] == "1" ? v[2] : v[1]); exit }')
if [ "${major:-0}" -lt 25 ] 2>/dev/null; then echo "AOT cache: skipped (Java $major; needs 25+)"; exit 0; fi
CACHE="$DIST/lib/caduceus.aot"
# The launcher records it with its own flags (CADUCEUS_AOT=train; JAVA_OPTS empty, so that the cache is made with the
# heap it runs with) and writes lib/caduceus.aot.for, which names the folder and the Java the cache holds for.
rm -f "$CACHE" "$CACHE.for"
SCRATCH=$(mktemp -d)
LOG="$SCRATCH/training.log"
# first_url FILE PID TENTHS: the first http:// URL FILE names (after "listening on" when it says so), once
# it does; empty if PID ends or TENTHS tenths of a second pass first
first_url() {
  n=0
  while [ $n -lt "$3" ]; do
    found=$(sed -n -e 's/.*listening on \(http:[^ ]*\).*/\1/p' -e 's/^\(http:[^ ]*\)$/\1/p' "$1" | head -1)
    [ -n "$found" ] && { echo "$found"; return; }
    kill -0 "$2" 2>/dev/null || return
    sleep 0.1
    n=$((n + 1))
  done
}
# the stand-in model, if the JDK can run a source file (it can from 11): without it, no turn is trained
"$JAVA" "$(dirname "$0")/TrainingUpstream.java" > "$SCRATCH/upstream.log" 2>&1 &
upstream_pid=$!
model=$(first_url "$SCRATCH/upstream.log" "$upstream_pid" 300)
CADUCEUS_HOME="$SCRATCH/home" API_SERVER_PORT=0 API_SERVER_KEY=aot-training-key-0123456789 CADUCEUS_AOT=train \
  OPENAI_BASE_URL="${model:-http://127.0.0.1:9/v1}" CADUCEUS_MODEL=training-model CADUCEUS__MODEL__HEALTH_PROBE=false \
  JAVA_HOME="${JAVA%/bin/java}" JAVA_OPTS= \
  "$DIST/bin/caduceus" serve > "$LOG" 2>&1 &
pid=$!
url=$(first_url "$LOG" "$pid" 600)
if [ -n "$url" ] && command -v curl >/dev/null 2>&1; then
  curl -fs -o /dev/null "$url/health" || true
  curl -fs -o /dev/null -H "Authorization: Bearer aot-training-key-0123456789" "$url/v1/capabilities" || true
  if [ -n "$model" ]; then
    for stream in false true; do
      curl -fs -o /dev/null -m 30 -H "Authorization: Bearer aot-training-key-0123456789" -H "Content-Type: application/json" \
        -d "{\"model\":\"hermes-agent\",\"stream\":$stream,\"messages\":[{\"role\":\"user\",\"content\":\"Say ok\"}]}" \
        "$url/v1/chat/completions" || echo "AOT cache: the training turn (stream $stream) failed; the cache is trained without it"
    done
  fi
fi
kill -TERM "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
kill "$upstream_pid" 2>/dev/null || true
wait "$upstream_pid" 2>/dev/null || true
if [ -s "$CACHE" ]; then
  echo "AOT cache: $CACHE ($(du -h "$CACHE" | cut -f1))"
else
  rm -f "$CACHE" "$CACHE.for"
  echo "AOT cache: not created (training log below)"; tail -20 "$LOG"
fi
rm -rf "$SCRATCH"
exit 0
