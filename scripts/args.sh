# args.sh, sourced by scripts under scripts/ (before they change directory):
# usage prints the script's header comment (its lines from the second to
# `set -euo`); no_args reads the command line of a script that takes no
# arguments (-h or --help prints the usage and exits 0, any other
# argument is refused with exit status 2), no_flags that of a script whose
# arguments are operands (-h or --help as no_args, any other argument that
# starts with - refused with exit status 2).
# The script's path, absolute: usage reads it after the script has changed
# directory (a script run as ./x.sh from scripts/ then cd ..).
args_script=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
usage() { sed -n '2,/^set -euo/p' "$args_script" | sed '$d; s/^# \{0,1\}//'; }

no_args() {
	[ $# -gt 0 ] || return 0
	case $1 in -h | --help) usage; exit 0 ;; esac
	echo "$(basename "$0"): unknown argument $1 (it takes none; --help says what it does)" >&2
	exit 2
}

no_flags() {
	local a
	for a in "$@"; do
		case $a in
		-h | --help) usage; exit 0 ;;
		-*) echo "$(basename "$0"): unknown flag $a (--help says what it takes)" >&2; exit 2 ;;
		esac
	done
}
