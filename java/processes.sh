# Sourced by cluster/hbase.sh and thrift/gateway.sh: how they stop the processes they started.

alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }

# Stops one process: TERM, up to $2 seconds for it to exit, then KILL.
stop_pid() {
  local pid="$1" patience="$2" name="$3"
  alive "$pid" || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 "$patience"); do
    alive "$pid" || { echo "$name: stopped (pid $pid)"; return 0; }
    sleep 1
  done
  echo "$name: pid $pid still up after $patience s, killing it" >&2
  kill -KILL "$pid" 2>/dev/null || true
}

# Whether the process of $pidfile (the sourcing script's) is up.
running() { [ -f "$pidfile" ] && alive "$(cat "$pidfile")"; }
