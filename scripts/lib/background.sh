# Shared by the scripts that start servers in the background (walkthrough.sh, schemathesis.sh).
# Source it; it defines functions only.

# Stops the given processes: SIGTERM to all, then up to five seconds each to exit cleanly
# (a server closes its store), then SIGKILL for any still there.
stop_processes() {
    local pid
    for pid in "$@"; do kill -TERM "$pid" 2>/dev/null; done
    for pid in "$@"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    return 0
}

# Prints the last LINES lines of every *.log in DIR to standard error, each under its name.
show_logs() {
    local dir="$1" lines="$2" log
    for log in "$dir"/*.log; do
        [[ -f "$log" ]] || continue
        echo "---- last lines of $(basename "$log")" >&2
        tail -n "$lines" "$log" >&2
    done
}
