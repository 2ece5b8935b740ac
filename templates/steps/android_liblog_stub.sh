# Writes DIR/liblog.a with a no-op __android_log_write, for a static link that names -llog
# (tfbuild fix-up android-static-liblog: an NDK has liblog only as liblog.so).
# Runs as `bash -c <this> bash CC AR DIR`: every value arrives as an argument, never as shell text.
set -eu
cc="$1"; ar="$2"; dir="$3"
mkdir -p "$dir"
cat > "$dir/android_log_stub.c" <<'END'
/* tfbuild fix-up android-static-liblog: the one liblog function TensorFlow calls, doing nothing. */
int __android_log_write(int prio, const char* tag, const char* text) {
  (void)prio; (void)tag; (void)text;
  return 0;
}
END
"$cc" -O2 -fPIC -c "$dir/android_log_stub.c" -o "$dir/android_log_stub.o"
rm -f "$dir/liblog.a"
"$ar" rcs "$dir/liblog.a" "$dir/android_log_stub.o"
echo "wrote $dir/liblog.a (no-op __android_log_write)"
