# A tfbuild fix-up's literal edit of a downloaded (git-ignored) source file: in every line holding
# FIND, FIND replaced by TEXT (replace) or the line TEXT added after it (add-line), logged. Only
# where the file is there, holds FIND and every +TEXT and no -TEXT (the fix already in); otherwise
# the log says why nothing changed, and so does a second run.
# Runs as `bash -c <this> bash FILE FIND MODE TEXT [+TEXT|-TEXT]...`: values arrive as arguments,
# never as shell text, and are taken as they are (grep -F, awk index()).
set -eu
file="$1" find="$2" mode="$3" text="$4"
shift 4
if [ ! -f "$file" ]; then
  echo "$file: not there, nothing to change"
  exit 0
fi
for condition in "$@"; do
  case "$condition" in
    +*) if ! grep -qF -- "${condition#+}" "$file"; then
          echo "$file: no '${condition#+}', nothing to change"; exit 0; fi ;;
    -*) if grep -qF -- "${condition#-}" "$file"; then
          echo "$file: already has '${condition#-}', nothing to change"; exit 0; fi ;;
  esac
done
count="$(grep -cF -- "$find" "$file" || true)"
if [ "$count" = "0" ]; then
  echo "$file: no '$find', nothing to change"
  exit 0
fi
FIND="$find" TEXT="$text" MODE="$mode" awk '
  { line = $0; out = ""
    if (ENVIRON["MODE"] == "replace") {
      while ((at = index(line, ENVIRON["FIND"])) > 0) {
        out = out substr(line, 1, at - 1) ENVIRON["TEXT"]
        line = substr(line, at + length(ENVIRON["FIND"]))
      }
    }
    print out line
    if (ENVIRON["MODE"] == "add-line" && index($0, ENVIRON["FIND"]) > 0) print ENVIRON["TEXT"] }
' "$file" > "$file.tfbuild-tmp"
mv "$file.tfbuild-tmp" "$file"
if [ "$mode" = "replace" ]; then
  echo "$file: '$find' -> '$text' on $count line(s)"
else
  echo "$file: '$text' added after $count line(s) with '$find'"
fi
