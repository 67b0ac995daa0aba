#!/bin/sh
# Copy the ELF files among the test fixtures (tests/elf, cross-compiled at
# test time into BUILD/tests/elf/fixtures) to DST, as seeds for fuzz_list: real
# binaries of six architectures. Nothing to copy is not an error.
#   sh fuzz/fixture_seeds.sh SRC_DIR DST_DIR
set -eu
src=$1 dst=$2
mkdir -p "$dst"
[ -d "$src" ] || exit 0
find "$src" -type f -size -1024k | while read -r f; do
	# only ELF images: "\177ELF"
	if [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ]; then
		cp "$f" "$dst/$(echo "${f#"$src"/}" | tr / _)"
	fi
done
