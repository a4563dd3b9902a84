#!/bin/bash
# tools/completion: the generated bash completion, sourced by bash, completes
# `slinkyctl g` to `get`, the -o formats, conf's subcommands, and offers
# exactly the commands `slinkyctl --help` lists.
# usage: completion.sh SLINKYCTL COMPLETION_FILE
set -u
S=${1:?}; F=${2:?}
fail=0
ok() { echo "ok   - $*"; }
bad() { echo "FAIL - $*"; fail=1; }
# shellcheck disable=SC1090
. "$F" || { echo "FAIL - cannot source $F"; exit 1; }
comp() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _slinkyctl; echo "${COMPREPLY[*]}"; }
[ "$(comp slinkyctl g)" = get ] && ok "slinkyctl g -> get" || bad "slinkyctl g -> '$(comp slinkyctl g)'"
[ "$(comp slinkyctl -v 2 ver)" = version ] && ok "slinkyctl -v 2 ver -> version" || bad "-v 2 ver -> '$(comp slinkyctl -v 2 ver)'"
[ "$(comp slinkyctl get nss -o wi)" = wide ] && ok "-o wi -> wide" || bad "-o wi -> '$(comp slinkyctl get nss -o wi)'"
[ "$(comp slinkyctl conf un)" = unset ] && ok "conf un -> unset" || bad "conf un -> '$(comp slinkyctl conf un)'"
[ "$(comp slinkyctl get --all-n)" = --all-namespaces ] && ok "get --all-n -> --all-namespaces" || bad "get --all-n -> '$(comp slinkyctl get --all-n)'"
case " $(comp slinkyctl get no) " in *" nodesets "*) ok "get no -> nodesets" ;; *) bad "get no -> '$(comp slinkyctl get no)'" ;; esac
want=$("$S" --help | sed -n '/^commands:/,/^$/p' | awk 'NF && $1 != "commands:" {print $1}' | sort | paste -sd' ')
got=$(comp slinkyctl '' | tr ' ' '\n' | grep -v '^-' | sort | paste -sd' ')
[ "$want" = "$got" ] && ok "the same commands as --help" || bad "completion offers '$got', --help lists '$want'"
exit $fail
