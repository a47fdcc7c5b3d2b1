# Sourced by every bash (BASH_ENV): copies the image's first-run configuration into $HOME once, so a
# fresh tmpfs HOME starts with answers to the app's first-run questions. Never overwrites a file.
if [ -n "${HOME:-}" ] && [ -w "$HOME" ] && [ ! -e "$HOME/.engiloop-seeded" ] && [ -d /etc/engiloop/home ]; then
  cp -rn /etc/engiloop/home/. "$HOME"/ 2>/dev/null
  : >"$HOME/.engiloop-seeded"
fi
