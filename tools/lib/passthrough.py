"""A Python tool's command line with arguments for another command after `--` (docs/development.md): argparse
parses the tool's own options (-h/--help, exit 2 on an option it does not know) and what follows the first `--`
goes to the other command unchanged, `--help` included."""
import textwrap


def parse_with_passthrough(parser, argv, metavar, what):
    """(the tool's options, the arguments after the first `--`). METAVAR names them in the usage, WHAT in the help."""
    usage = parser.format_usage().split(" ", 1)[1].rstrip("\n")
    parser.usage = f"{usage} [-- {metavar} ...]"
    parser.add_argument_group("after --", textwrap.fill(what, 76))
    own, extras = parser.parse_known_args(argv)  # extras: what argparse did not take, `--` and after included
    after = argv[argv.index("--") + 1:] if "--" in argv else []
    unknown = extras[:len(extras) - len(after)]
    if unknown[-1:] == ["--"]:
        unknown = unknown[:-1]
    if unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)} ({metavar} go after --)")
    return own, after
