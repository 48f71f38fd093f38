#!/usr/bin/env bash
# Third-party check of the StarMade blueprints islagen writes: SMBEdit (the community's reference
# blueprint editor, MIT, in ../shared/peers/) must accept every entity kind `islagen export
# starmade` makes and every test vector re-written by `islagen starmade write`, and must name
# each export's entity type as islagen means it.
#
# Builds islagen (release), generates a small world, exports it with every --entity kind,
# re-writes every vector, and runs SMBEdit's summary (`smbedit_run.py FILE -s`) on each result.
# Prints one line per file; exits 1 if SMBEdit refuses any (non-zero exit or an ERROR line) or
# reads an export as another entity type, 2 if something it needs is missing.
#
# Usage: scripts/check-smbedit.sh
#   SMBEDIT_RUN  the shim to run (default ../shared/peers/smbedit_run.py; needs Python 3.10+)
#   VECTORS      the folder of .sment vectors (default tests/vectors/starmade)
#   KEEP=1       keep the temporary folder and print where it is
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
shim=${SMBEDIT_RUN:-$root/../shared/peers/smbedit_run.py}
vectors=${VECTORS:-$root/tests/vectors/starmade}
python=${PYTHON:-python3}

if [[ ! -f "$shim" ]]; then
    echo "check-smbedit: SMBEdit's shim not found at $shim (set SMBEDIT_RUN)" >&2
    exit 2
fi
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
    echo "check-smbedit: $python is older than 3.10; the shim needs 3.10+" >&2
    exit 2
fi
shopt -s nullglob
sments=("$vectors"/*.sment)
if ((${#sments[@]} == 0)); then
    echo "check-smbedit: no .sment vectors in $vectors" >&2
    exit 2
fi

cargo build --release --quiet
bin=${CARGO_TARGET_DIR:-$root/target}/release/islagen

tmp=$(mktemp -d)
if [[ ${KEEP:-0} == 1 ]]; then
    echo "check-smbedit: keeping $tmp"
else
    trap 'rm -rf "$tmp"' EXIT
fi

failures=0
# check LABEL FILE [EXPECTED_TYPE]: SMBEdit's summary of FILE; one line of verdict.
check() {
    local label=$1 file=$2 expected=${3:-} log rc=0 type class blocks
    log="$tmp/$label.smbedit.log"
    "$python" "$shim" "$file" -s >"$log" 2>&1 || rc=$?
    type=$(grep -m1 '^Type: ' "$log" | sed 's/^Type: //; s/ (w:.*//' || true)
    class=$(grep -m1 '^Classification: ' "$log" | sed 's/^Classification: //' || true)
    blocks=$(grep -m1 '^Blocks: ' "$log" | sed 's/^Blocks: //' || true)
    if ((rc != 0)) || grep -q 'ERROR' "$log"; then
        failures=$((failures + 1))
        printf 'REFUSED  %-34s exit %d: %s\n' "$label" "$rc" \
            "$(grep -m1 'ERROR' "$log" | sed 's/.*ERROR: //' || tail -n1 "$log")"
    elif [[ -n $expected && $type != "$expected" ]]; then
        failures=$((failures + 1))
        printf 'WRONG    %-34s SMBEdit reads type %s, not %s\n' "$label" "${type:-?}" "$expected"
    else
        printf 'ok       %-34s type %s, classification %s, %s blocks\n' \
            "$label" "${type:-?}" "${class:-?}" "${blocks:-?}"
    fi
}

if ! "$bin" --seed 42 --size 512 --skip-roads -q --out "$tmp/world" >"$tmp/world.log" 2>&1; then
    cat "$tmp/world.log" >&2
    echo "check-smbedit: generating the world failed" >&2
    exit 2
fi
world=$tmp/world/MapData_Seed_42.dat

# Every kind clap offers, with the type name SMBEdit should read.
kinds=$("$bin" export starmade -h | sed -n 's/.*\[possible values: \([^]]*\)\].*/\1/p' | tr -d ',')
if [[ -z $kinds ]]; then
    echo "check-smbedit: could not read the --entity kinds from islagen's help" >&2
    exit 2
fi
for kind in $kinds; do
    case $kind in
        asteroid) expected="Asteroid" ;;
        managed-asteroid) expected="Managed Asteroid" ;;
        planet) expected="Planet" ;;
        station) expected="Space Station" ;;
        *)
            echo "check-smbedit: no expected SMBEdit type for --entity $kind; add it here" >&2
            exit 2
            ;;
    esac
    "$bin" export starmade --from "$world" --out "$tmp/export-$kind" --width 96 \
        --entity "$kind" >/dev/null
    check "export --entity $kind" "$tmp/export-$kind/Island_Seed_42.sment" "$expected"
done

for vector in "${sments[@]}"; do
    name=$(basename "$vector" .sment)
    out=$tmp/rewrite-$name
    "$bin" starmade write "$vector" --out "$out" >/dev/null
    written=("$out"/*.sment)
    if ((${#written[@]} != 1)); then
        failures=$((failures + 1))
        echo "MISSING  rewrite $name: no .sment written"
        continue
    fi
    check "rewrite $name" "${written[0]}"
done

if ((failures > 0)); then
    echo "check-smbedit: SMBEdit refused or misread $failures file(s)"
    exit 1
fi
echo "check-smbedit: SMBEdit accepted every file"
