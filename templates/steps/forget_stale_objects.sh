# Removes what a build made (TensorFlow's objects, archives and programs; an nsync build
# directory) when the last build in this tree made it with other flags (tfbuild). make rebuilds
# on a changed source or header, never on a changed command line, and a step skipped because its
# archive exists never looks at the flags: without this a --size-profile switch would relink the
# old objects and say nothing.
# Runs as `bash -c <this> bash STAMP FINGERPRINT PATH...`: every value arrives as an argument,
# never as shell text.
set -eu
stamp="$1"; fingerprint="$2"; shift 2
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$fingerprint" ]; then
  echo "same flags as the last build in this tree: its objects are kept"
  exit 0
fi
built=()
found=0
for path in "$@"; do
  if [ -e "$path" ]; then built+=("$path"); found=1; fi
done
if [ "$found" -eq 0 ]; then
  echo "nothing built yet"
elif [ -f "$stamp" ]; then
  echo "the last build in this tree used other flags: removing ${built[*]}"
else
  echo "no record of the flags of earlier builds in this tree: removing ${built[*]}"
fi
rm -rf -- "${built[@]+"${built[@]}"}"
mkdir -p "$(dirname "$stamp")"
printf '%s' "$fingerprint" > "$stamp.tmp"
mv "$stamp.tmp" "$stamp"
