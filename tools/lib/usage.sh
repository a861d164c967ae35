# shellcheck shell=bash
# The command line idiom of the shell tools in tools/ (docs/development.md), sourced by each with its path in $0:
#   -h / --help            the tool's header comment (line 2 down to the first line that is not "# ..."), exit 0
#   an unknown option      one line "TOOL: unknown option X (usage: ...)" on stderr, exit 2 (an argument the tool
#                          does not take: "unexpected argument X")
# The usage in that line is the header's line that starts "Usage:" (any case), with the lines below it that start
# with "[" (a usage wrapped over several lines).

usage_tool=$(basename "$0")

usage_text() {
  awk 'NR == 1 { next } /^#( |$)/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
}

usage_line() {
  usage_text | awk '
    !found && tolower($0) ~ /^ *usage: / { found = 1; sub(/^ *[^:]*: */, ""); line = $0; next }
    found && /^ +\[/ { line = line " " $0; next }
    found { exit }
    END { gsub(/  +/, " ", line); print line }'
}

usage_help() {
  usage_text
  exit 0
}

usage_error() {  # MESSAGE: bad usage, said in one line with the usage
  echo "$usage_tool: $* (usage: $(usage_line))" >&2
  exit 2
}

usage_unknown() {  # ARG: an option or argument the tool does not take
  case $1 in
    -*) usage_error "unknown option $1" ;;
    *) usage_error "unexpected argument $1" ;;
  esac
}

# For a tool without options: -h/--help, any other option unknown, and at most MAX arguments ("any": no limit).
usage_no_options() {  # MAX ARG...
  local max=$1 arg
  shift
  for arg in "$@"; do
    case $arg in
      -h | --help) usage_help ;;
      -*) usage_unknown "$arg" ;;
    esac
  done
  [ "$max" = any ] || [ $# -le "$max" ] || usage_unknown "${*:max+1:1}"
}

# An option's value: fails with "OPTION needs a value" where it is missing. Call as: usage_value "$@"
usage_value() {  # OPTION [VALUE ...]
  [ $# -ge 2 ] || usage_error "$1 needs a value"
}
