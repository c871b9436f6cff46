#!/usr/bin/env bash
# Installs the Mapstead binary as a hardened systemd service. Makes no network access; safe to run
# again (upgrades the binary, rewrites the unit, keeps settings and data).
#
#   sudo ./install.sh                          install ./dist/mapstead-linux-<this CPU>
#   sudo ./install.sh --binary ./mapstead      install a given binary
#   ./install.sh --prefix /tmp/root --no-systemd   unprivileged install under a directory (tests, packaging)
#   sudo ./install.sh --uninstall              remove binary and unit; keep settings and data
#   sudo ./install.sh --uninstall --purge      also remove settings, data and the mapstead user
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: install.sh [--binary PATH] [--prefix DIR] [--no-systemd] [--uninstall [--purge]]

  --binary PATH   the mapstead executable to install (default: dist/mapstead-linux-<this CPU>)
  --prefix DIR    install under DIR instead of / (no user is created, systemctl is not run)
  --no-systemd    do not write or enable the systemd unit
  --uninstall     remove the binary and the unit; settings and data are kept
  --purge         with --uninstall: also remove settings, data and the mapstead user
  -h, --help      this help

Installs:
  /usr/local/bin/mapstead                  the binary
  /etc/mapstead/mapstead.env               settings (written once; your edits are kept)
  /var/lib/mapstead                        DATA_DIR, owned by the mapstead system user
  /etc/systemd/system/mapstead.service     hardened unit, enabled and (re)started
EOF
}

die() {
  echo "install.sh: $*" >&2
  exit 1
}

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BINARY=""
PREFIX=""
SYSTEMD=1
UNINSTALL=0
PURGE=0

while [ "$#" -gt 0 ]; do
  case "$1" in
    --binary) [ "$#" -ge 2 ] || { echo "install.sh: --binary needs a path" >&2; exit 2; }; BINARY=$2; shift 2 ;;
    --binary=*) BINARY=${1#--binary=}; shift ;;
    --prefix) [ "$#" -ge 2 ] || { echo "install.sh: --prefix needs a directory" >&2; exit 2; }; PREFIX=$2; shift 2 ;;
    --prefix=*) PREFIX=${1#--prefix=}; shift ;;
    --no-systemd) SYSTEMD=0; shift ;;
    --uninstall) UNINSTALL=1; shift ;;
    --purge) PURGE=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "install.sh: unknown option '$1'; see --help" >&2; exit 2 ;;
  esac
done
[ "$PURGE" -eq 0 ] || [ "$UNINSTALL" -eq 1 ] || { echo "install.sh: --purge only goes with --uninstall" >&2; exit 2; }

if [ -n "$PREFIX" ]; then
  mkdir -p "$PREFIX"
  PREFIX=$(cd "$PREFIX" && pwd)
fi

# Paths as the running service sees them, and where this script writes them.
BIN_PATH=/usr/local/bin/mapstead
STATE_DIR=/var/lib/mapstead
CONF_DIR=/etc/mapstead
ENV_FILE=$CONF_DIR/mapstead.env
UNIT_FILE=/etc/systemd/system/mapstead.service
SERVICE_USER=mapstead

# A system install (root, no prefix) creates the user and drives systemd; a prefix install never does.
SYSTEM_INSTALL=0
if [ -z "$PREFIX" ]; then
  [ "$(id -u)" -eq 0 ] || die "run as root (sudo), or use --prefix DIR for an unprivileged install"
  SYSTEM_INSTALL=1
fi
HAVE_SYSTEMCTL=0
if [ "$SYSTEM_INSTALL" -eq 1 ] && [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
  HAVE_SYSTEMCTL=1
fi

say() { echo "==> $*"; }

uninstall() {
  if [ "$HAVE_SYSTEMCTL" -eq 1 ] && [ -f "$UNIT_FILE" ]; then
    systemctl disable --now mapstead.service >/dev/null 2>&1 || true
  fi
  rm -f "$PREFIX$UNIT_FILE" "$PREFIX$BIN_PATH"
  if [ "$HAVE_SYSTEMCTL" -eq 1 ]; then systemctl daemon-reload; fi
  say "removed $PREFIX$BIN_PATH and $PREFIX$UNIT_FILE"
  if [ "$PURGE" -eq 1 ]; then
    rm -rf "$PREFIX$STATE_DIR" "$PREFIX$CONF_DIR"
    say "purged $PREFIX$STATE_DIR and $PREFIX$CONF_DIR"
    if [ "$SYSTEM_INSTALL" -eq 1 ] && id "$SERVICE_USER" >/dev/null 2>&1; then
      userdel "$SERVICE_USER" >/dev/null 2>&1 || echo "install.sh: could not remove user $SERVICE_USER" >&2
      say "removed user $SERVICE_USER"
    fi
  else
    say "kept settings in $PREFIX$CONF_DIR and data in $PREFIX$STATE_DIR (--uninstall --purge removes them)"
  fi
}

default_binary() {
  local arch name
  arch=$(uname -m)
  case "$arch" in
    x86_64 | amd64)
      # CPUs without AVX2 need the baseline build.
      if grep -qw avx2 /proc/cpuinfo 2>/dev/null; then name=linux-x64; else name=linux-x64-baseline; fi ;;
    aarch64 | arm64) name=linux-arm64 ;;
    *) die "no Mapstead build for CPU '$arch'; pass --binary PATH" ;;
  esac
  for dir in "$SCRIPT_DIR/dist" "./dist"; do
    if [ -f "$dir/mapstead-$name" ]; then echo "$dir/mapstead-$name"; return; fi
    if [ "$name" = linux-x64 ] && [ -f "$dir/mapstead-linux-x64-baseline" ]; then echo "$dir/mapstead-linux-x64-baseline"; return; fi
  done
  die "no dist/mapstead-$name next to install.sh or in ./dist; run 'bun run build' first or pass --binary PATH"
}

# Why a file given as the binary printed no version: what is in it, read from its first bytes, so a
# saved HTML page, a build for another CPU and a cut-off copy are each named for what they are.
why_it_does_not_run() {
  local file=$1 here magic machine built_for
  here=$(uname -m)
  magic=$(head -c 4 "$file" | od -An -c | tr -d ' \n')
  if [ "$magic" != "177ELF" ]; then
    case "$(head -c 64 "$file" | tr -d '\000' | tr '[:upper:]' '[:lower:]')" in
      *"<!doctype"* | *"<html"*) echo "'$file' is an HTML page, not a program: download the release file itself (not the page that links to it)" ;;
      *) echo "'$file' is not a Linux executable; pass the mapstead-linux-* file that 'bun run build' writes to dist/" ;;
    esac
    return
  fi
  # e_machine, a little-endian 16-bit field at byte 18 of the ELF header.
  machine=$(od -An -tu1 -j18 -N2 "$file" | awk '{ print $1 + 256 * $2 }')
  case "$machine" in
    62) built_for=x86_64 ;;
    183) built_for=aarch64 ;;
    *) built_for="another CPU (ELF machine $machine)" ;;
  esac
  case "$here:$built_for" in
    x86_64:x86_64 | amd64:x86_64 | aarch64:aarch64 | arm64:aarch64)
      if [ "$built_for" = x86_64 ] && ! grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
        echo "'$file' does not run on this CPU, which lacks AVX2: install mapstead-linux-x64-baseline instead"
      else
        echo "'$file' is an $built_for program but does not run here; check that it was copied whole (compare its size and checksum with the original)"
      fi ;;
    *) echo "'$file' is built for $built_for, and this machine is $here: pick the mapstead-linux-* build for this CPU" ;;
  esac
}

write_env_file() {
  local target=$PREFIX$ENV_FILE
  if [ -f "$target" ]; then
    say "kept existing settings in $target"
    return
  fi
  mkdir -p "$PREFIX$CONF_DIR"
  cat >"$target.tmp" <<EOF
# Mapstead settings, read by the systemd unit (EnvironmentFile) and by every mapstead command run on
# this machine (sudo -u mapstead mapstead preflight); the environment and flags win over them.
# Uncomment and edit; then: sudo systemctl restart mapstead
# Commented values are the defaults, or examples where the default is none or depends on the machine
# (WORKERS, RENDER_WORKERS: the comment above each says what it is).
# Each setting can also be given as a --kebab-case flag. A bad value stops start-up with a message.

# Where the SQLite database, tile archives, fonts, sprites and uploads live. The unit may write only
# here: if you move it, add the new path with 'systemctl edit mapstead' (ReadWritePaths=...).
DATA_DIR=$STATE_DIR

# The origin clients use; every absolute URL the service writes starts with it.
# Set it whenever clients reach this machine by another name than localhost. Behind a reverse
# proxy that publishes Mapstead under a path of another host, include the path
# (https://gis.example.org/maps; see "Installing on a server" in the README).
#PUBLIC_URL=https://maps.example.com

# Listen address and port.
#HOST=0.0.0.0
#PORT=8080

# Pelias-compatible geocoder, including its version prefix.
# Geocoding backend: auto (Pelias when its URL is set, else the embedded gazetteer), pelias, embedded, off.
#GEOCODER=auto
#GEOCODER_INTERNAL_URL=http://pelias-api:4000/v1
#GEOCODER_TIMEOUT_MS=5000

# OpenTopoData-compatible elevation dataset endpoint.
#ELEVATION_INTERNAL_URL=http://opentopodata:5000/v1/srtm30m
#ELEVATION_TIMEOUT_MS=5000
#ELEVATION=auto
#ELEVATION_TILESET=acme/srtm

# OSRM or Valhalla routing server, which engine it is, and its profile names
# (defaults: OSRM driving=car,walking=foot,cycling=bike; Valhalla auto, pedestrian, bicycle).
#ROUTING_INTERNAL_URL=http://osrm:5000
#ROUTING_ENGINE=osrm
#ROUTING_TIMEOUT_MS=5000
#ROUTING_PROFILES=driving=car,walking=foot,cycling=bike

# Largest accepted upload in MiB; larger ones get 413.
#MAX_UPLOAD_MB=2048

# Memory the tiler aims to stay within per import, in MiB (bigger cuts large inputs faster).
#TILING_MEMORY_MB=256

# Default requests per minute per API key and service group.
#RATE_LIMIT_PER_MINUTE=600

# Static images and raster tiles: render threads per HTTP worker (default: the cores divided among
# WORKERS, at least 1), renders waiting before
# 503 RENDER_BUSY, and the time limit of one render (then 503 RENDER_TIMEOUT).
#RENDER_WORKERS=2
#RENDER_QUEUE=64
#RENDER_TIMEOUT_MS=15000
# Raster tiles drawn per minute for one client address without a key or session (tiles the render
# caches answer do not count; 0 = no limit); over it, 429 RATE_LIMITED.
#ANONYMOUS_RENDERS_PER_MINUTE=600

# Behind a reverse proxy: take the client address from the last X-Forwarded-For entry (only then).
# URLs always start with PUBLIC_URL (set it to the public address); ALLOWED_HOSTS has no effect.
#TRUST_PROXY=false
#ALLOWED_HOSTS=

# debug, info, warn or error (JSON lines on stdout, collected by journald).
#LOG_LEVEL=info

# HTTP worker processes sharing the port (default: one per core; 1 = a single process).
#WORKERS=4
# Answer X-Mapstead-Worker naming the worker that served a request (debugging only).
#WORKER_HEADER=false
EOF
  chmod 0640 "$target.tmp"
  mv "$target.tmp" "$target"
  say "wrote settings to $target"
}

write_unit() {
  local target=$PREFIX$UNIT_FILE
  mkdir -p "$(dirname "$target")"
  cat >"$target.tmp" <<EOF
# Installed by Mapstead's install.sh; rewritten on every install. Put local changes in
# /etc/systemd/system/mapstead.service.d/override.conf (systemctl edit mapstead).
[Unit]
Description=Mapstead map publishing appliance
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
User=$SERVICE_USER
Group=$SERVICE_USER
EnvironmentFile=$ENV_FILE
WorkingDirectory=$STATE_DIR
ExecStart=$BIN_PATH serve
# SIGTERM drains in-flight requests for up to 10 s, then closes the database.
KillSignal=SIGTERM
TimeoutStopSec=20
Restart=on-failure
RestartSec=2
# A bad setting exits 2: restarting would not fix it.
RestartPreventExitStatus=2
UMask=0027
LimitNOFILE=65536

# Hardening: the service can write only its data directory and cannot gain privileges.
# (No MemoryDenyWriteExecute: the JavaScript JIT needs writable executable memory.)
NoNewPrivileges=yes
ProtectSystem=strict
ReadWritePaths=$STATE_DIR
ProtectHome=yes
PrivateTmp=yes
PrivateDevices=yes
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectClock=yes
ProtectHostname=yes
ProtectProc=invisible
RestrictNamespaces=yes
RestrictRealtime=yes
RestrictSUIDSGID=yes
LockPersonality=yes
RemoveIPC=yes
SystemCallArchitectures=native
RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX
# To listen on a port below 1024, set both to CAP_NET_BIND_SERVICE in an override.
CapabilityBoundingSet=
AmbientCapabilities=

[Install]
WantedBy=multi-user.target
EOF
  chmod 0644 "$target.tmp"
  mv "$target.tmp" "$target"
  say "wrote $target"
}

# Runs a mapstead command with the installed settings, as the service user on a system install.
run_mapstead() {
  (
    set -a
    # shellcheck disable=SC1090
    . "$PREFIX$ENV_FILE"
    set +a
    DATA_DIR=$PREFIX${DATA_DIR:-$STATE_DIR}
    export DATA_DIR
    if [ "$SYSTEM_INSTALL" -eq 1 ]; then
      if command -v runuser >/dev/null 2>&1; then
        runuser -p -u "$SERVICE_USER" -- "$PREFIX$BIN_PATH" "$@"
      else
        # shellcheck disable=SC2016 # expanded by the inner shell, on purpose
        su -s /bin/sh -p "$SERVICE_USER" -c '"$0" "$@"' "$PREFIX$BIN_PATH" "$@"
      fi
    else
      "$PREFIX$BIN_PATH" "$@"
    fi
  )
}

install_all() {
  [ -n "$BINARY" ] || BINARY=$(default_binary)
  [ -f "$BINARY" ] || die "binary '$BINARY' not found"
  [ -x "$BINARY" ] || [ -r "$BINARY" ] || die "binary '$BINARY' is not readable"
  # Refuse a file that is not a mapstead binary for this machine before replacing a working one.
  local version probe=$BINARY
  if [ ! -x "$BINARY" ]; then
    # Copied without its execute bit (scp, a browser download): it gets one when installed, so a copy
    # that has it is what is tried here.
    probe=$(mktemp "${TMPDIR:-/tmp}/mapstead-probe.XXXXXX") || die "cannot make a temporary file"
    cp "$BINARY" "$probe" && chmod 0755 "$probe"
  fi
  version=$("$probe" version 2>/dev/null) || version=""
  [ "$probe" = "$BINARY" ] || rm -f "$probe"
  [ -n "$version" ] || die "$(why_it_does_not_run "$BINARY")"
  case "$version" in mapstead\ *) ;; *) die "'$BINARY' is not a mapstead binary" ;; esac

  if [ "$SYSTEM_INSTALL" -eq 1 ] && ! id "$SERVICE_USER" >/dev/null 2>&1; then
    useradd --system --home-dir "$STATE_DIR" --no-create-home --shell /usr/sbin/nologin --user-group "$SERVICE_USER" 2>/dev/null ||
      useradd --system --home-dir "$STATE_DIR" --no-create-home --shell /usr/sbin/nologin "$SERVICE_USER"
    say "created system user $SERVICE_USER"
  fi

  # Copy beside the target, then rename: a running service keeps its old file, nothing half-written.
  mkdir -p "$PREFIX$(dirname "$BIN_PATH")"
  cp "$BINARY" "$PREFIX$BIN_PATH.new"
  chmod 0755 "$PREFIX$BIN_PATH.new"
  mv -f "$PREFIX$BIN_PATH.new" "$PREFIX$BIN_PATH"
  say "installed $version as $PREFIX$BIN_PATH"

  mkdir -p "$PREFIX$STATE_DIR"
  chmod 0750 "$PREFIX$STATE_DIR"
  if [ "$SYSTEM_INSTALL" -eq 1 ]; then chown -R "$SERVICE_USER:$SERVICE_USER" "$STATE_DIR"; fi

  write_env_file
  if [ "$SYSTEM_INSTALL" -eq 1 ]; then chown "root:$SERVICE_USER" "$ENV_FILE"; fi

  if [ "$SYSTEMD" -eq 1 ]; then write_unit; fi

  # The old binary must not go on serving while the new one upgrades the database under it.
  if [ "$SYSTEMD" -eq 1 ] && [ "$HAVE_SYSTEMCTL" -eq 1 ] && systemctl is-active --quiet mapstead.service; then
    say "stopping mapstead.service for the upgrade"
    systemctl stop mapstead.service
  fi

  say "applying database migrations"
  run_mapstead migrate

  say "setup checks (mapstead preflight)"
  local preflight=0
  run_mapstead preflight || preflight=$?

  if [ "$SYSTEMD" -eq 1 ] && [ "$HAVE_SYSTEMCTL" -eq 1 ]; then
    systemctl daemon-reload
    systemctl enable mapstead.service >/dev/null 2>&1
    systemctl restart mapstead.service
    say "mapstead.service enabled and (re)started; logs: journalctl -u mapstead -f"
  elif [ "$SYSTEMD" -eq 1 ] && [ "$SYSTEM_INSTALL" -eq 1 ]; then
    say "systemd is not running here; start it yourself: $BIN_PATH serve"
  fi

  if [ "$preflight" -ne 0 ]; then
    say "installed, but some setup checks failed: fix them in $PREFIX$ENV_FILE, then restart the service"
  else
    say "installed; the first start writes a one-time setup token for the admin account to $PREFIX$STATE_DIR/setup-token (mode 0600): sudo cat it"
  fi
}

if [ "$UNINSTALL" -eq 1 ]; then
  uninstall
else
  install_all
fi
