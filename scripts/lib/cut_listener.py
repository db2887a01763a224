"""Cuts one vouch instance's LISTEN connection to PostgreSQL, again and again for a while.

    python3 scripts/lib/cut_listener.py VOUCH_PID PG_PORT PSQL SOCKET_DIR SECONDS

The instance's listener is the connection pg_stat_activity names `vouch-endings-listener` whose
client port is one of that process's TCP connections to PG_PORT (another instance's listener is
left alone). Each time it is found it is terminated (pg_terminate_backend), for SECONDS, so that
whatever ends a session meanwhile is not heard through NOTIFY but must be caught up from the log
when the listener comes back. Prints how many connections it terminated; exits 1 if none.
"""
import os
import subprocess
import sys
import time


def client_ports(pid: str, pg_port: int) -> set[int]:
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not os.path.exists(table):
            continue
        for line in open(table).readlines()[1:]:
            fields = line.split()
            local, remote, inode = fields[1], fields[2], fields[9]
            if inode in inodes and int(remote.rsplit(":", 1)[1], 16) == pg_port:
                ports.add(int(local.rsplit(":", 1)[1], 16))
    return ports


def main() -> int:
    pid, pg_port, psql, socket_dir, seconds = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], float(sys.argv[5])
    query = ["SELECT pid, client_port FROM pg_stat_activity WHERE application_name = 'vouch-endings-listener'"]
    command = [psql, "-h", socket_dir, "-p", str(pg_port), "-U", "postgres", "-d", "postgres", "-tA", "-c"]
    terminated = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        ports = client_ports(pid, pg_port)
        rows = subprocess.run(command + query, check=True, capture_output=True, text=True).stdout.split()
        for row in rows:
            backend, port = row.split("|")
            if port and int(port) in ports:
                subprocess.run(command + [f"SELECT pg_terminate_backend({backend})"], check=True, capture_output=True)
                terminated += 1
        time.sleep(0.01)
    print(terminated)
    return 0 if terminated else 1


if __name__ == "__main__":
    sys.exit(main())
