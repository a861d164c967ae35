# shellcheck shell=bash
# python3 without a version manager's shim, for the commands that start it many times (source it):
#   python_direct_path DIR   prints a PATH with DIR first, DIR/python3 being a link to the interpreter that
#                            `python3` runs now; where python3 is no shim (it is that interpreter), PATH unchanged
# pyenv's shim starts every python3 through bash and `pyenv exec`: 0.45 CPU s and 2.7 s wall per start at load 8,
# against 0.04 CPU s and 0.3 s for the interpreter itself, and the test suite starts python3 thousands of times
# (scripts, wait probes, the GPU self-test's stand-ins). The link runs the same interpreter the shim would pick.
python_direct_path() {
  local real
  real=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
  if [ -z "$real" ] || [ "$(command -v python3)" = "$real" ]; then
    echo "$PATH"
    return
  fi
  mkdir -p "$1" && ln -sfn "$real" "$1/python3" && echo "$1:$PATH"
}
