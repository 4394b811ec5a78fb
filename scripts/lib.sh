# Shared by scripts/run.sh and scripts/test.sh: a virtualenv with requirements.txt installed (and, for the tests,
# node_modules from package-lock.json). Each re-installs only when its list changed since the last install.

ensure_venv() {
  local py="${PYTHON:-python3}"
  if [ ! -x .venv/bin/python ]; then
    echo "· creating .venv" >&2
    "$py" -m venv .venv
  fi
  local stamp=.venv/.requirements.sha256
  local want
  want=$(sha256sum requirements.txt | cut -d' ' -f1)
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "· installing requirements.txt into .venv" >&2
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -r requirements.txt
    echo "$want" > "$stamp"
  fi
  export PATH="$PWD/.venv/bin:$PATH"
}

# node_modules from package-lock.json (axe-core, which tests/browser inject into pages to check accessibility).
# Re-installs only when the lock changed since the last install; without npm the accessibility tests skip and say so.
ensure_node_modules() {
  local stamp=node_modules/.package-lock.sha256
  local want
  want=$(sha256sum package-lock.json | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    return 0
  fi
  if ! command -v npm >/dev/null 2>&1; then
    echo "· npm is not installed: the accessibility tests (axe-core) will skip" >&2
    return 0
  fi
  echo "· installing package-lock.json into node_modules" >&2
  if npm ci --quiet --no-audit --no-fund >/dev/null; then
    echo "$want" > "$stamp"
  else
    echo "· npm ci failed: the accessibility tests (axe-core) will skip" >&2
  fi
}

# tcp_open HOST PORT: true when something listens there.
tcp_open() {
  (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null
}

# The demo (run.sh without --prod) is read by a person in a terminal: plain text log lines, unless LOG_FORMAT says
# otherwise (JSON stays the default everywhere else: config/settings/logging.py), and the offline `rules` model.
demo_environment() {
  export LOG_FORMAT="${LOG_FORMAT:-text}"
  export ASSISTANT_LLM_PROVIDER="${ASSISTANT_LLM_PROVIDER:-rules}"
}

# demo_banner HOST PORT TASKS LIVE: where the demo runs and its logins, in one piece. The logins are read first, so what
# that command logs while starting comes before the table, not in the middle of it.
demo_banner() {
  local logins
  logins=$(python manage.py seed_demo --logins)
  cat <<INFO

TripDesk is running.
  Chat:     http://$1:$2/
  Console:  http://$1:$2/admin/
  API docs: http://$1:$2/api/v1/docs/
  Health:   http://$1:$2/healthz
  Tasks:    $3
  Live:     ${4:-off}
  Logs:     var/web.log, var/worker.log

Log in with:
$logins

Press Ctrl-C to stop.
INFO
}
