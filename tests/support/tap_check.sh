# TAP for a shell test, sourced after it sets $tmp (a folder it owns):
#   check "description" command [args...]   runs the command in a subshell under set -e; prints
#                                             "ok N - description", or "not ok N" and its output indented
#   tap_end                                  the summary comment and the exit status (1 if any failed)
n=0
failed=0
check() {
    desc=$1
    shift
    n=$((n + 1))
    log=$tmp/check-$n.log
    set +e
    (
        set -e
        "$@"
    ) >"$log" 2>&1
    rc=$?
    set -e
    if [ $rc -eq 0 ]; then
        echo "ok $n - $desc"
    else
        failed=$((failed + 1))
        echo "not ok $n - $desc"
        sed 's/^/#   /' "$log"
    fi
}
tap_end() {
    [ $failed -eq 0 ] && echo "# all $n passed" || echo "# $failed of $n failed"
    exit $((failed > 0))
}
