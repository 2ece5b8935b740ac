# Passes trt itself where Eigen's Transpositions.h calls trt.derived(), which clang 19 rejects
# (tfbuild fix-up eigen-transpositions-clang19). The header is a downloaded dependency, not a
# file of the tree; the change is logged, and a second run finds nothing to change.
# Runs as `bash -c <this> bash HEADER`: the path arrives as an argument, never as shell text.
set -eu
header="$1"
if [ ! -f "$header" ]; then
  echo "$header: not there (no Eigen downloaded), nothing to change"
  exit 0
fi
count="$(grep -c 'trt\.derived()' "$header" || true)"
if [ "$count" = "0" ]; then
  echo "$header: no trt.derived(), nothing to change"
  exit 0
fi
sed 's/trt\.derived()/trt/g' "$header" > "$header.tfbuild-tmp"
mv "$header.tfbuild-tmp" "$header"
echo "$header: trt.derived() -> trt on $count line(s)"
