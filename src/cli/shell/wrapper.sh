# ansa shell integration for @SHELL@, written by `ansa --install-shell @SHELL@`.
# It defines an `ansa` function that starts one ash-broker per interactive shell the first
# time a task needs the live provider, so the shell's ansa runs share provider connections.
# ASH_BROKER_SOCKET, ASH_BROKER_TOKEN and ASH_BROKER_LEASE live only in this shell's
# environment: never copy them into a profile, a crontab or any other file.

__ansa_broker_needed() {
  for __ansa_arg in "$@"; do
    case "$__ansa_arg" in
      --offline|--offline-jsonl|--offline-demo|--script|--script=*|--version|-V|--help|-h|\
      --print-config|--self-check|--login|--login-consent|--logout|--auth-status|\
      --refresh-auth|--install-shell|--install-shell=*|--broker-upstream|--models)
        return 1 ;;
    esac
  done
  return 0
}

__ansa_broker_start() {
  command -v ash-broker >/dev/null 2>&1 || return 0
  __ansa_dir="${ANSA_HOME:-$HOME/.ansa}/runtime"
  __ansa_reuse=
  if [ -n "${ASH_BROKER_SOCKET:-}" ] && [ -S "$ASH_BROKER_SOCKET" ]; then
    # A socket alone proves nothing: a killed broker leaves its file behind. Only a broker
    # that accepts a connection is kept; a stale socket of this shell's own naming is
    # replaced on the same path (the new broker removes it under the path's lock).
    command ash-broker --probe "$ASH_BROKER_SOCKET" >/dev/null 2>&1
    case $? in
      0) return 0 ;;
      1) case "$ASH_BROKER_SOCKET" in
           "$__ansa_dir"/broker-*.sock) __ansa_reuse=1 ;;
         esac ;;
    esac
  fi
  __ansa_upstream=$(command ansa --broker-upstream 2>/dev/null) || return 0
  [ -n "$__ansa_upstream" ] || return 0
  (umask 077 && mkdir -p "$__ansa_dir") || return 0
  chmod 700 "$__ansa_dir" 2>/dev/null || return 0
  __ansa_token=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n') || return 0
  [ ${#__ansa_token} -eq 64 ] || return 0
  if [ -n "$__ansa_reuse" ]; then
    ASH_BROKER_LEASE="${ASH_BROKER_SOCKET%.sock}.lease"
  else
    __ansa_session="${ASH_BROKER_SESSION:-$$-$RANDOM$RANDOM}"
    ASH_BROKER_SOCKET="$__ansa_dir/broker-$__ansa_session.sock"
    ASH_BROKER_LEASE="$__ansa_dir/broker-$__ansa_session.lease"
  fi
  ASH_BROKER_TOKEN="$__ansa_token"
  export ASH_BROKER_SOCKET ASH_BROKER_TOKEN ASH_BROKER_LEASE
  # The token goes in on stdin, never on a command line nor in the broker's environment (which
  # its user's other processes could read); the broker is not a job of this shell and keeps no
  # terminal.
  (unset ASH_BROKER_TOKEN; printf '%s\n' "$__ansa_token" | command ash-broker --socket "$ASH_BROKER_SOCKET" \
    --parent-pid "$$" --lease "$ASH_BROKER_LEASE" --upstream "$__ansa_upstream" \
    >/dev/null 2>&1 &)
  unset __ansa_token
  # Wait briefly for the socket; a task that starts earlier simply goes direct.
  __ansa_wait=0
  while [ "$__ansa_wait" -lt 100 ]; do
    command ash-broker --probe "$ASH_BROKER_SOCKET" >/dev/null 2>&1 && break
    sleep 0.01 2>/dev/null || break
    __ansa_wait=$((__ansa_wait + 1))
  done
  return 0
}

ansa() {
  if [ -z "${ANSA_NO_BROKER:-}" ] && __ansa_broker_needed "$@"; then
    __ansa_broker_start
  fi
  command ansa "$@"
}
