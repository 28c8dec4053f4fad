# tests/packages/steps.sh: the counting the package tests share.  Source it
# after setting $name; then "step TITLE CMD ..." runs CMD, prints
# "NAME: TITLE: ok" or "NAME: TITLE: FAILED" and counts it, and
# "steps_end" prints "NAME: P passed, F failed" and fails if any step did.
passed=0
failed=0

step() {
	local title=$1
	shift
	if "$@"; then
		echo "$name: $title: ok"
		passed=$((passed + 1))
	else
		echo "$name: $title: FAILED"
		failed=$((failed + 1))
	fi
}

steps_end() {
	echo "$name: $passed passed, $failed failed"
	[ "$failed" = 0 ]
}
