# Shared by the scripts that start servers in the background (walkthrough.sh, schemathesis.sh,
# client_example.sh, chat_demo.sh). Source it; it defines functions only.

# begin_script LABEL NAME [LOG_LINES]: the script's frame. `fail MESSAGE` says "LABEL: FAILED:
# MESSAGE" and exits 1. WORK is a fresh temporary directory (vouch-NAME.XXXXXX) and PIDS the
# processes to stop. On exit, whatever the reason: every process in PIDS is stopped, `on_exit` runs
# if the script defines it, and on failure the last LOG_LINES (default 20) lines of each log in
# WORK are shown, then the first failure again (or the exit status), last, so that it is not lost
# above them. WORK is removed, or kept and named with KEEP_WORK=1.
begin_script() {
    SCRIPT_LABEL="$1"
    SCRIPT_LOG_LINES="${3:-20}"
    WORK="$(mktemp -d "${TMPDIR:-/tmp}/vouch-$2.XXXXXX")"
    PIDS=()
    trap end_script EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

fail() {
    echo "${SCRIPT_LABEL:-script}: FAILED: $*" >&2
    [[ -n "${WORK:-}" && -d "$WORK" ]] && echo "$*" > "$WORK/failure"
    exit 1
}

end_script() {
    local status=$?
    set +e
    stop_processes ${PIDS[@]+"${PIDS[@]}"}
    if declare -F on_exit > /dev/null; then on_exit; fi
    if [[ $status -ne 0 ]]; then
        local logs=0
        if compgen -G "$WORK/*.log" > /dev/null; then
            show_logs "$WORK" "$SCRIPT_LOG_LINES"
            logs=1
        fi
        if [[ ! -f "$WORK/failure" ]]; then
            echo "$SCRIPT_LABEL: FAILED (exit status $status)" >&2
        elif (( logs )); then
            echo "$SCRIPT_LABEL: FAILED: $(cat "$WORK/failure")" >&2
        fi
    fi
    if [[ -n "${KEEP_WORK:-}" ]]; then echo "$SCRIPT_LABEL: kept $WORK" >&2; else rm -rf "$WORK"; fi
    exit "$status"
}

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

# free_port [PREFERRED]: a TCP port free on 127.0.0.1 at the time of asking: PREFERRED unless it
# is taken, else one the system picks.
free_port() {
    python3 -c '
import socket, sys
for port in (int(sys.argv[1]), 0):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        continue
    print(s.getsockname()[1])
    s.close()
    break
' "${1:-0}"
}

# wait_until_answering URL NAME [STATUS]: waits up to 60 s for URL to answer (STATUS, if given).
wait_until_answering() {
    local url="$1" name="$2" expected="${3:-}" status
    for _ in $(seq 600); do
        status="$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$url" || true)"
        if [[ -n "$status" && "$status" != "000" && ( -z "$expected" || "$status" == "$expected" ) ]]; then return 0; fi
        sleep 0.1
    done
    fail "$name did not answer ${expected:-at all} on $url within 60 s"
}
