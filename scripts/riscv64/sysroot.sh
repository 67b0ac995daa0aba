#!/bin/sh
# The riscv64 sysroot for usdtkit's ELF core and attach layer: zlib,
# zstd, elfutils' libelf and libbpf, cross-built from bookworm's source
# packages (scripts/riscv64/common.sh says why). Prints its path.
#
# It is laid out like the sysroots scripts/cross.sh unpacks with dpkg -x
# for the Debian architectures, so cmake/toolchains/debian-cross.cmake
# takes it unchanged as -DUSDTKIT_CROSS_SYSROOT=$(sh scripts/riscv64/sysroot.sh):
#   usr/include                          libelf.h gelf.h elfutils/ bpf/ zlib.h zstd.h ...
#   usr/lib/riscv64-linux-gnu            lib*.so lib*.so.N (the shared
#                                        libusdtkit and the unit tests
#                                        under qemu-user) and lib*.a (the
#                                        static CLI)
#   usr/lib/riscv64-linux-gnu/pkgconfig  libelf.pc libbpf.pc zlib.pc libzstd.pc,
#                                        prefix /usr (the toolchain file
#                                        sets PKG_CONFIG_SYSROOT_DIR)
#
# usage: scripts/riscv64/sysroot.sh   (cache: $USDTKIT_CACHE/riscv64)
set -eu
rv_top=$(cd "$(dirname "$0")/../.." && pwd)
. "$rv_top/scripts/riscv64/common.sh"

# Bump when the way of building changes, so that the cache key changes
# although the source versions do not.
recipe=1

# (word lists: $srcs and $dscs are split on purpose below)
srcs="zlib libzstd elfutils libbpf"
# shellcheck disable=SC2086
dscs=$(rv_dscs $srcs)
for s in $srcs; do
	case $dscs in
	*"${s}_"*) ;;
	*) rv_die "no source package $s in the private apt state" ;;
	esac
done
# shellcheck disable=SC2086
rv_begin sysroot "$(rv_key "sysroot recipe $recipe" $dscs)"

dsc() {	# the .dsc of source package $1
	# shellcheck disable=SC2086
	printf '%s\n' $dscs | grep "^$1_"
}

root=$rv_tmp/root
lib=/usr/lib/$rv_triplet
cc=$rv_triplet-gcc
# Debian's own flags (dpkg-buildflags), less what only packaging needs:
# the .a files go into a static executable, the .so files into qemu-user
# runs, both built the way bookworm builds them for its architectures.
cflags="-g -O2 -ffile-prefix-map=$rv_tmp=. -fstack-protector-strong -Wformat -Werror=format-security"
# Later steps compile and link against what earlier ones installed.
cppflags="-I$root/usr/include"
ldflags="-L$root$lib -Wl,-rpath-link,$root$lib"
mkdir -p "$root$lib/pkgconfig"

# --- zlib ---
# Its configure takes the cross tools from CHOST (riscv64-linux-gnu-gcc,
# -ar, -ranlib) and builds libz.a and libz.so.1 in one run.
d=$rv_tmp/zlib
rv_unpack zlib "$(dsc zlib)" "$d" "$rv_log/zlib.log"
rv_step "$rv_log/zlib.log" "zlib: configure" sh -c "cd '$d' &&
	CHOST=$rv_triplet CFLAGS='$cflags' ./configure --prefix=/usr --libdir=$lib"
rv_step "$rv_log/zlib.log" "zlib: build" make -C "$d" -j"$rv_jobs"
rv_step "$rv_log/zlib.log" "zlib: install" make -C "$d" install DESTDIR="$root"
rm -rf "${root:?}/usr/share"	# man page

# --- zstd (the library only) ---
# libzstd.a and libzstd.so.1 from lib/; the zstd programs are not needed.
d=$rv_tmp/zstd
rv_unpack libzstd "$(dsc libzstd)" "$d" "$rv_log/zstd.log"
set -- CC="$cc" AR="$rv_triplet-ar" CFLAGS="$cflags" \
	PREFIX=/usr LIBDIR="$lib" DESTDIR="$root"
rv_step "$rv_log/zstd.log" "zstd: build" make -C "$d/lib" -j"$rv_jobs" "$@" lib-release
rv_step "$rv_log/zstd.log" "zstd: install" make -C "$d/lib" "$@" install

# --- elfutils: libelf only ---
# configure checks for everything elfutils builds; what libelf does not
# need is switched off (debuginfod and its libcurl, libmicrohttpd,
# libarchive; NLS; the C++ demangler; the bzip2, lzma and zstd readers,
# which only libdwfl uses: bookworm's libelf1 links libz alone). Then
# lib/ (libeu, its helpers) and libelf/ are the only directories built.
d=$rv_tmp/elfutils
rv_unpack elfutils "$(dsc elfutils)" "$d" "$rv_log/elfutils.log"
rv_step "$rv_log/elfutils.log" "elfutils: configure" sh -c "cd '$d' &&
	./configure --host=$rv_triplet --prefix=/usr --libdir=$lib \
		--disable-debuginfod --disable-libdebuginfod --disable-nls \
		--disable-demangler --without-bzlib --without-lzma --without-zstd \
		CFLAGS='$cflags' CPPFLAGS='$cppflags' LDFLAGS='$ldflags'"
rv_step "$rv_log/elfutils.log" "elfutils: build libelf" sh -c "
	make -C '$d/lib' -j$rv_jobs && make -C '$d/libelf' -j$rv_jobs"
rv_step "$rv_log/elfutils.log" "elfutils: install libelf" \
	make -C "$d/libelf" install DESTDIR="$root"
# The top level installs elfutils/version.h and config/ the .pc files;
# both would build or install more than libelf, so copy the two files.
install -m 644 "$d/version.h" "$root/usr/include/elfutils/version.h"
install -m 644 "$d/config/libelf.pc" "$root$lib/pkgconfig/libelf.pc"

# --- libbpf ---
# Its Makefile asks pkg-config for libelf and zlib: pointing pkg-config
# at the sysroot being built proves those .pc files work.
d=$rv_tmp/libbpf
rv_unpack libbpf "$(dsc libbpf)" "$d" "$rv_log/libbpf.log"
set -- CC="$cc" AR="$rv_triplet-ar" CFLAGS="$cflags" LDFLAGS="$ldflags" \
	PREFIX=/usr LIBDIR="$lib" DESTDIR="$root"
rv_step "$rv_log/libbpf.log" "libbpf: build" \
	env PKG_CONFIG_LIBDIR="$root$lib/pkgconfig" PKG_CONFIG_PATH="" \
	PKG_CONFIG_SYSROOT_DIR="$root" \
	make -C "$d/src" -j"$rv_jobs" "$@"
rv_step "$rv_log/libbpf.log" "libbpf: install" \
	env PKG_CONFIG_LIBDIR="$root$lib/pkgconfig" PKG_CONFIG_PATH="" \
	PKG_CONFIG_SYSROOT_DIR="$root" \
	make -C "$d/src" "$@" install

# Debian's packages ship their libraries without debug info (dh_strip):
# do the same, or the static CLI carries 40 MB of zstd's DWARF.
for f in "$root$lib"/*.a; do
	rv_run "$rv_log/strip.log" $rv_triplet-strip --strip-debug \
		--enable-deterministic-archives "$f"
done
for f in "$root$lib"/*.so*; do
	[ -L "$f" ] && continue	# libX.so, libX.so.N: links to the file
	rv_run "$rv_log/strip.log" $rv_triplet-strip --strip-unneeded "$f"
done
rv_say "stripped debug info"

# --- check what the toolchain file will look for ---
for f in usr/include/libelf.h usr/include/gelf.h usr/include/elfutils/version.h \
	usr/include/bpf/libbpf.h usr/include/zlib.h usr/include/zstd.h; do
	[ -f "$root/$f" ] || rv_die "missing $f"
done
for l in libelf libbpf libz libzstd; do
	[ -f "$root$lib/$l.a" ] || rv_die "missing $lib/$l.a"
	[ -e "$root$lib/$l.so" ] || rv_die "missing $lib/$l.so"
done
for p in libelf libbpf zlib libzstd; do
	PKG_CONFIG_LIBDIR="$root$lib/pkgconfig" PKG_CONFIG_PATH="" \
		PKG_CONFIG_SYSROOT_DIR="$root" \
		pkg-config --exists --print-errors "$p" ||
		rv_die "$p.pc does not work"
done
# shellcheck disable=SC2086
printf '%s\n' $dscs > "$root/SOURCES"
rv_commit "$root"
