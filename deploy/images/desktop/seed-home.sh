# Sourced by every bash (BASH_ENV): copies the image's first-run configuration into $HOME once, so a
# fresh tmpfs HOME starts with answers to the apps' first-run questions. Never overwrites a file.
#   .config/LibreCAD/LibreCAD.conf   [Startup] FirstLoad=false: no "Welcome" settings dialog
#   .config/FreeCAD/user.cfg         Part workbench instead of the Start page; Combo View shown
#                                    (a hand-made user.cfg otherwise opens with the Python console
#                                    and no model tree); Addon Manager update check off
#   .config/kicad/6.0/kicad_common.json  its presence skips "Configure KiCad Settings Path"
#   .config/kicad/6.0/{sym,fp}-lib-table empty tables: no "Configure Global … Library Table"
#   .config/openbox/rc.xml           one desktop, main windows maximized, no launcher keys
if [ -n "${HOME:-}" ] && [ -w "$HOME" ] && [ ! -e "$HOME/.engiloop-seeded" ] && [ -d /etc/engiloop/home ]; then
  cp -rn /etc/engiloop/home/. "$HOME"/ 2>/dev/null
  : >"$HOME/.engiloop-seeded"
fi
