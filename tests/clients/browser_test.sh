#!/usr/bin/env bash
# tests/clients/browser_test.sh VECTORS DIR: the JavaScript library in
# headless Chromium (Debian's chromium): clients/js/test/browser.html,
# served over HTTP from DIR (module scripts do not load from file://) with
# the library's src/ and the first 5,000 values of every type of VECTORS
# (a vectors-N.jsonl), checks every answer against the server's and prints
# "browser: ok (...)" into the page, which chromium --dump-dom shows; probed
# in WebAssembly and in JavaScript, and again on csp.html, the page under a
# Content-Security-Policy that forbids WebAssembly (JavaScript only).
set -euo pipefail
vectors=$1
dir=$2
python=${PYTHON:-/usr/bin/python3}
rm -rf "$dir"
mkdir -p "$dir"
cp -a clients/js/src "$dir/src"
cp clients/js/test/browser.html "$dir/index.html"
# the same page under a Content-Security-Policy that forbids WebAssembly
# (no 'wasm-unsafe-eval'): the library must fall back to JavaScript
sed 's|<head>|<head><meta http-equiv="Content-Security-Policy" content="default-src '"'self'"'; script-src '"'self' 'unsafe-inline'"'">|' \
	"$dir/index.html" >"$dir/csp.html"
"$python" - "$vectors" "$dir/vectors.json" <<'PY'
import json, sys
cases = []
with open(sys.argv[1], encoding="utf-8") as f:
    for line in f:
        c = json.loads(line)
        keep = list(range(min(c["added"], 2500))) + list(range(c["added"], min(len(c["values"]), c["added"] + 2500)))
        c["values"] = [c["values"][i] for i in keep]
        c["added"] = min(c["added"], 2500)
        for flt in c["filters"]:
            flt["answers"] = "".join(flt["answers"][i] for i in keep)
            flt.pop("info", None)
        cases.append(c)
json.dump(cases, open(sys.argv[2], "w"))
PY
port=$((20000 + RANDOM % 20000))
"$python" -m http.server "$port" --bind 127.0.0.1 --directory "$dir" >"$dir/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do
	(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
	sleep 0.1
done
browser=$(command -v chromium || command -v chromium-browser)
status=0
for page in index csp; do
	# --virtual-time-budget: the page's work (fetch, then the checks) finishes before the DOM is dumped
	timeout 300 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
		--user-data-dir="$dir/profile-$page" --virtual-time-budget=300000 \
		--dump-dom "http://127.0.0.1:$port/$page.html" 2>"$dir/chromium-$page.log" >"$dir/dom-$page.html" || true
	# the page's verdict: the text of its <pre id="result"> ("running" if the checks never ended)
	result=$(sed -n 's/.*<pre id="result">\([^<]*\)<\/pre>.*/\1/p' "$dir/dom-$page.html")
	[ -n "$result" ] || result="browser: FAILED: no page $page.html (see $dir/chromium-$page.log)"
	echo "$result"
	[[ $result == "browser: ok"* ]] || status=1
done
exit $status
