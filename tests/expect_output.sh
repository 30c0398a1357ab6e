#!/bin/sh
# Runs a command and checks its exit status and output (ctest cannot count lines nor require a failure with a
# message in one test):
#   expect_output.sh ok|fail|N PATTERN ONCE COMMAND [ARGS...]
#     ok: exit status 0; fail: any other status (a crash or a timeout still fails the test through ctest); N: exactly
#     that exit status (e.g. 1, a refused flag)
#     PATTERN: an extended regular expression some line of stdout+stderr must match
#     ONCE: a pattern exactly one line must match (e.g. a table header printed by rank 0 only), or - for none
status=$1 pattern=$2 once=$3
shift 3
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$status" = ok ] && [ "$rc" -ne 0 ]; then echo "expect_output: exit status $rc, expected 0"; exit 1; fi
if [ "$status" = fail ] && [ "$rc" -eq 0 ]; then echo "expect_output: exit status 0, expected a failure"; exit 1; fi
case $status in
  ok|fail) ;;
  *) if [ "$rc" -ne "$status" ]; then echo "expect_output: exit status $rc, expected $status"; exit 1; fi ;;
esac
if ! printf '%s\n' "$out" | grep -Eq -- "$pattern"; then echo "expect_output: no line matches '$pattern'"; exit 1; fi
if [ "$once" != - ]; then
  n=$(printf '%s\n' "$out" | grep -Ec -- "$once")
  if [ "$n" -ne 1 ]; then echo "expect_output: $n lines match '$once', expected 1"; exit 1; fi
fi
exit 0
