#!/usr/bin/env bash
# Installs and starts what engiloop needs from the operating system, skipping what is present:
#   - Docker engine (Debian's docker.io) and a running dockerd
#   - debootstrap (the base sandbox image is built from a minbase Debian root)
#   - nats-server 2.10+ from Debian trixie through an apt pin (bookworm's 2.9 lacks sync_interval)
# Idempotent; needs root. Exit codes: 0 ready, 1 an install step failed, 2 dockerd did not come up.
set -euo pipefail
log() { printf '[bootstrap] %s\n' "$*" >&2; }

if [ "$(id -u)" != 0 ]; then log "must run as root (it uses apt-get and starts dockerd)"; exit 1; fi

apt_updated=0
apt_update() { if [ "$apt_updated" = 0 ]; then log "apt-get update"; apt-get update -qq; apt_updated=1; fi; }

# --- nats-server from trixie, pinned so nothing else is pulled from trixie ---
nats_ok() { command -v nats-server >/dev/null && nats-server --version | grep -Eq 'v2\.(1[0-9]|[2-9][0-9])'; }
if ! nats_ok; then
  if [ ! -f /etc/apt/sources.list.d/engiloop-trixie.sources ]; then
    log "adding Debian trixie (pinned to priority 100) for nats-server 2.10"
    cat > /etc/apt/sources.list.d/engiloop-trixie.sources <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    cat > /etc/apt/preferences.d/engiloop-trixie <<'PIN'
Package: *
Pin: release n=trixie
Pin-Priority: 100
PIN
    apt_updated=0
  fi
  apt_update
  log "installing nats-server from trixie"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -t trixie --no-install-recommends nats-server >/dev/null
  # The Debian package starts a system service; engiloop runs its own servers.
  (systemctl disable --now nats-server 2>/dev/null || service nats-server stop 2>/dev/null || true) >/dev/null
fi
log "nats-server: $(nats-server --version)"

# --- Docker engine, debootstrap, the tools of per-sandbox disk limits (actors/sandbox/disk.ts), Chromium ---
pkgs=()
command -v dockerd >/dev/null || pkgs+=(docker.io)
command -v debootstrap >/dev/null || pkgs+=(debootstrap)
command -v mkfs.ext4 >/dev/null && command -v debugfs >/dev/null || pkgs+=(e2fsprogs)
command -v losetup >/dev/null || pkgs+=(mount)
# Headless Chromium for the report pages' browser tests and bench (driven by playwright-core).
command -v chromium >/dev/null || pkgs+=(chromium)
if [ ${#pkgs[@]} -gt 0 ]; then
  apt_update
  log "installing ${pkgs[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
fi

if ! docker info >/dev/null 2>&1; then
  if [ -n "${DOCKER_HOST:-}" ]; then log "DOCKER_HOST=$DOCKER_HOST does not answer"; exit 2; fi
  log "starting dockerd (log: /var/log/engiloop-dockerd.log)"
  # Its own session: a Ctrl-C, or a tool killing the calling process group, must not take it down.
  setsid nohup dockerd >/var/log/engiloop-dockerd.log 2>&1 < /dev/null &
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 0.5; done
  docker info >/dev/null 2>&1 || { log "dockerd did not come up; see /var/log/engiloop-dockerd.log"; tail -20 /var/log/engiloop-dockerd.log >&2; exit 2; }
fi
log "docker: $(docker version --format '{{.Server.Version}}' 2>/dev/null)"

# Each sandbox's workspace is an ext4 filesystem on a loop device: check one can be had.
[ -e /dev/loop-control ] || modprobe loop 2>/dev/null || true
if ! losetup -f >/dev/null 2>&1; then
  log "no free loop device (losetup -f): per-sandbox disk limits need one; load the loop module, or set ENGILOOP_DISK_LIMIT=off"
  exit 1
fi
mkdir -p /var/lib/engiloop/disks && chmod 700 /var/lib/engiloop/disks
