# shellcheck shell=bash
# python3 for the commands that start it many times (source it): Debian's, without a version manager between.
#   python_direct_path DIR   prints a PATH with DIR first, DIR/python3 being a link to /usr/bin/python3 where it
#                            exists (else to the interpreter `python3` runs now); where python3 on PATH is already
#                            that interpreter, PATH unchanged
# pyenv's shim starts every python3 through bash and `pyenv exec`: 0.45 CPU s and 2.7 s wall per start at load 8,
# against 0.04 CPU s and 0.3 s for the interpreter itself; and an interpreter of a version manager may load more at
# each start than Debian's (a .pth file in its site-packages that imports a package: 0.06-0.07 CPU s a start here
# against 0.03). The test suite starts python3 thousands of times (scripts, wait probes, the GPU self-test's
# stand-ins; gpu_scripts_groups 34 -> 24 CPU s). /usr/bin/python3 is the interpreter tools/setup installs the
# packages for and the one k25comm runs its plots with; the tests' scripts need the standard library only.
python_direct_path() {
  local real=/usr/bin/python3
  [ -x "$real" ] || real=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
  if [ -z "$real" ] || [ "$(command -v python3)" = "$real" ]; then
    echo "$PATH"
    return
  fi
  mkdir -p "$1" && ln -sfn "$real" "$1/python3" && echo "$1:$PATH"
}
