# Sourced by the install tests (the caller has ok and bad).
# cmake_example CC SRC BUILD PREFIX: configure and build the project SRC
# in BUILD with compiler CC, warnings as errors, against the install
# PREFIX only; BUILD.log keeps the output. 1 (and said) if it fails.
cmake_example() {
	_cc=$1 _src=$2 _b=$3 _prefix=$4
	if ! CC=$_cc cmake -S "$_src" -B "$_b" -DCMAKE_PREFIX_PATH="$_prefix" \
		-DCMAKE_C_FLAGS=-Werror >"$_b.log" 2>&1 ||
	   ! cmake --build "$_b" -- VERBOSE=1 >>"$_b.log" 2>&1; then
		bad "$_cc: build failed:"
		cat "$_b.log"
		return 1
	fi
	if grep -q 'warning:' "$_b.log"; then
		bad "$_cc: warnings"; grep 'warning:' "$_b.log"; else ok; fi
}
