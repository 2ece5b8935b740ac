# Removes TensorFlow's objects, archives and programs when the last build in this tree used other
# flags (tfbuild). make rebuilds on a changed source or header, never on a changed command line:
# without this a --size-profile switch would relink the old objects and say nothing.
# Runs as `bash -c <this> bash STAMP FINGERPRINT DIR...`: every value arrives as an argument,
# never as shell text.
set -eu
stamp="$1"; fingerprint="$2"; shift 2
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$fingerprint" ]; then
  echo "same flags as the last build in this tree: its objects are kept"
  exit 0
fi
if [ -f "$stamp" ]; then
  echo "the last build in this tree used other flags: removing $*"
else
  echo "no record of the flags of earlier builds in this tree: removing $*"
fi
rm -rf -- "$@"
mkdir -p "$(dirname "$stamp")"
printf '%s' "$fingerprint" > "$stamp.tmp"
mv "$stamp.tmp" "$stamp"
