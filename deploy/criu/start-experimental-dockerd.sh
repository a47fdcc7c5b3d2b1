#!/usr/bin/env bash
# Starts (or stops) a SECOND, isolated dockerd in experimental mode whose default runtime can
# checkpoint/restore containers with CRIU. It never touches the main dockerd (/var/run/docker.sock):
# its own socket, data root, exec root (and so its own containerd), cgroup parent, no bridge, no
# iptables. See FINDINGS.md beside this file for what works through it and what does not.
#
#   deploy/criu/start-experimental-dockerd.sh start   # install CRIU if needed, start, print DOCKER_HOST
#   deploy/criu/start-experimental-dockerd.sh status
#   deploy/criu/start-experimental-dockerd.sh stop    # stop it, unmount leftovers, remove its data root
#
# CRIU: kernels >= 6.13 split the vDSO data page ([vvar_vclock]); CRIU < 4.1 (bookworm has 3.17)
# then fails every dump with "vdso: Unexpected rt vDSO area bounds". If no criu >= 4.1 is on PATH,
# this installs trixie's criu 4.1.1 privately under $CRIU_PREFIX with trixie's glibc beside it
# (patchelf'd interpreter + rpath), so the system's bookworm glibc is left alone. That needs a trixie
# apt source (apt-cache policy criu must list a 4.x candidate).
#
# Must run as root on the host that runs dockerd. Environment overrides:
#   CRIU_PREFIX (/opt/engiloop-criu)  CRIU_RUN (/run/engiloop-criu)  CRIU_DATA (/var/lib/engiloop-criu)
#   CRIU_LOG (/tmp/criu-dockerd.log)
set -euo pipefail

PREFIX=${CRIU_PREFIX:-/opt/engiloop-criu}
RUN=${CRIU_RUN:-/run/engiloop-criu}
DATA=${CRIU_DATA:-/var/lib/engiloop-criu}
LOG=${CRIU_LOG:-/tmp/criu-dockerd.log}
SOCK=$RUN/docker.sock
PIDFILE=$RUN/docker.pid

die() { echo "start-experimental-dockerd: $*" >&2; exit 1; }

criu_version_ok() { # $1 = criu binary; true when it is >= 4.1
  local v
  v=$("$1" --version 2>/dev/null | sed -n 's/^Version: *//p') || return 1
  [ -n "$v" ] && [ "$(printf '%s\n4.1\n' "$v" | sort -V | head -n1)" = 4.1 ]
}

install_criu() {
  if [ -x "$PREFIX/bin/criu.real" ] && criu_version_ok "$PREFIX/bin/criu.real"; then return; fi
  mkdir -p "$PREFIX/bin" "$PREFIX/lib"
  if command -v criu >/dev/null && criu_version_ok "$(command -v criu)"; then
    ln -sf "$(command -v criu)" "$PREFIX/bin/criu.real"
    return
  fi
  local policy
  policy=$(apt-cache policy criu)
  grep -qE '^ +4\.' <<<"$policy" || die "no criu >= 4.1 on PATH and no 4.x candidate in apt (add a trixie source)"
  # criu 4.1's own libraries are ABI-compatible with bookworm's; only glibc >= 2.38 is missing.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq patchelf libbsd0 libgnutls30 libnftables1 \
    libprotobuf-c1 libnl-3-200 libnet1 libuuid1 >/dev/null
  local tmp
  tmp=$(mktemp -d)
  (cd "$tmp" && apt-get download -qq criu/trixie libc6/trixie 2>/dev/null)
  dpkg-deb -x "$tmp"/criu_*.deb "$tmp/criu"
  dpkg-deb -x "$tmp"/libc6_*.deb "$tmp/libc"
  cp -a "$tmp/libc/usr/lib/x86_64-linux-gnu/." "$PREFIX/lib/"
  cp "$tmp/criu/usr/sbin/criu" "$PREFIX/bin/criu.real"
  # DT_RPATH (not RUNPATH) so that libc.so.6 is found here for the indirect dependencies too.
  patchelf --set-interpreter "$PREFIX/lib/ld-linux-x86-64.so.2" --force-rpath --set-rpath "$PREFIX/lib" \
    "$PREFIX/bin/criu.real"
  rm -rf "$tmp"
}

write_wrappers() {
  ln -sf criu.real "$PREFIX/bin/criu"
  # The mount-v2 engine of CRIU 4.1 cannot restore docker's file bind mounts (docker-init from
  # --init, /etc/hosts ...): "mnt-v2: Can't remount ... with MS_PRIVATE". The option is refused on
  # dump, so it goes in a config file that only restores read.
  printf 'mntns-compat-mode\n' >"$PREFIX/restore.conf"
  cat >"$PREFIX/bin/runc-criu" <<EOF
#!/bin/bash
# runc using CRIU >= 4.1; restores in mount compat mode; keeps criu's logs when runc fails.
for a in "\$@"; do [ "\$a" = restore ] && export CRIU_CONFIG_FILE=$PREFIX/restore.conf; done
/usr/sbin/runc --criu $PREFIX/bin/criu "\$@"; rc=\$?
if [ \$rc != 0 ]; then
  wp=""; prev=""; for a in "\$@"; do [ "\$prev" = --work-path ] && wp=\$a; prev=\$a; done
  if [ -n "\$wp" ]; then
    mkdir -p $RUN/criu-logs
    for f in "\$wp"/*.log; do [ -f "\$f" ] && cp "\$f" "$RUN/criu-logs/\$(date +%s%N)-\$(basename "\$f")"; done
  fi
fi
exit \$rc
EOF
  chmod 0755 "$PREFIX/bin/runc-criu"
}

running() { [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; }

start() {
  [ "$(id -u)" = 0 ] || die "run as root"
  if running; then echo "DOCKER_HOST=unix://$SOCK"; return; fi
  install_criu
  write_wrappers
  "$PREFIX/bin/criu" check >/dev/null 2>&1 || die "criu check failed: $("$PREFIX/bin/criu" check 2>&1 | tail -n 3)"
  mkdir -p "$RUN/exec" "$DATA"
  nohup dockerd --experimental -H "unix://$SOCK" --data-root "$DATA" --exec-root "$RUN/exec" \
    --pidfile "$PIDFILE" --bridge none --iptables=false --ip-masq=false --ip-forward=false \
    --cgroup-parent engiloop-criu --add-runtime "criu=$PREFIX/bin/runc-criu" --default-runtime criu \
    >>"$LOG" 2>&1 &
  for _ in $(seq 60); do
    docker -H "unix://$SOCK" version >/dev/null 2>&1 && { echo "DOCKER_HOST=unix://$SOCK"; return; }
    sleep 0.5
  done
  die "dockerd did not come up; see $LOG"
}

stop() {
  if running; then
    local pid
    pid=$(cat "$PIDFILE")
    kill "$pid"
    for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$pid" 2>/dev/null && die "dockerd $pid did not stop"
  fi
  # Anything dockerd/containerd left mounted under our own roots (deepest first).
  awk -v a="$DATA" -v b="$RUN" '$2 ~ "^"a || $2 ~ "^"b {print $2}' /proc/self/mounts | sort -r |
    while read -r m; do umount "$m" 2>/dev/null || umount -l "$m"; done
  rm -rf "$DATA" "$RUN"
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  status) if running; then echo "running pid $(cat "$PIDFILE") DOCKER_HOST=unix://$SOCK"; else echo stopped; exit 1; fi ;;
  *) die "usage: $0 start|stop|status" ;;
esac
