# Shared by scripts/run.sh and scripts/test.sh: a virtualenv with requirements.txt installed.
# Re-installs only when requirements.txt changed since the last install.

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

# tcp_open HOST PORT: true when something listens there.
tcp_open() {
  (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null
}
