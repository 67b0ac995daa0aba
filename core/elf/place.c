// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Where a probe lives: the prelink adjustment, the file offset of its pc
 * (uprobes attach by file offset), the semaphore's file offset (the
 * kernel's ref_ctr_offset) and, on x86-64, the long nop of a "nop; nop5"
 * or "nop; nop10" site.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "spec/arch.h"
#include "elf/file.h"
#include "elf/image.h"	/* and elf.h: PF_X */


static const struct usdtkit_segment *
find_segment(const struct usdtkit_file *f, uint64_t addr)
{
	size_t i;

	for (i = 0; i < f->nsegs; i++) {
		const struct usdtkit_segment *s = &f->segs[i];

		if (addr >= s->vaddr && addr - s->vaddr < s->memsz)
			return s;
	}
	return NULL;
}

static void site_fail(struct usdtkit_site *s, int err, const char *why)
{
	if (!s->status) {
		s->status = err;
		s->error = why;
	}
}

/*
 * x86-64 probe sites whose 1-byte nop is followed by a longer nop that
 * the kernel may turn into a call to a uprobe trampoline: sys/sdt.h's
 * "nop; nop5" (Linux 6.18 optimizes a uprobe on the nop5) and libbpf's
 * newer usdt.h "nop; nop10" (Linux 7.x optimizes the nop10, whose call
 * steps over the red zone). The uprobe stays on the 1-byte nop unless
 * the attach layer knows this kernel optimizes the long one: 6.18
 * refuses a BPF uprobe on the nop10, and never fires a tracefs one.
 */
static const struct site_nop {
	uint8_t len;		/* the bytes after the 1-byte nop */
	uint8_t code[11];	/* the 1-byte nop, then the long nop */
	size_t off;		/* offsetof(struct usdtkit_site, ...) */
} site_nops[] = {
	{ 5, { 0x90, 0x0f, 0x1f, 0x44, 0x00, 0x00 },
	  offsetof(struct usdtkit_site, nop5_offset) },
	{ 10, { 0x90, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
	  offsetof(struct usdtkit_site, nop10_offset) },
};

/* @seg: the executable segment of the site; a long nop must end in it */
static void detect_long_nop(struct usdtkit_file *f, struct usdtkit_site *s,
			    const struct usdtkit_segment *seg,
			    struct usdtkit_image *im)
{
	uint64_t room = seg->offset + seg->filesz - s->pc_offset;
	const uint8_t *code;
	size_t i;

	if (f->arch->e_machine != USDTKIT_EM_X86_64 ||
	    f->arch->elf_class != USDTKIT_ELFCLASS64)
		return;
	for (i = 0; i < sizeof(site_nops) / sizeof(site_nops[0]); i++) {
		const struct site_nop *n = &site_nops[i];

		if (room < 1u + n->len)
			continue;
		code = usdtkit__image_bytes(im, s->pc_offset, 1u + n->len);
		if (code && !memcmp(code, n->code, 1u + n->len))
			*(uint64_t *)((char *)s + n->off) = s->pc_offset + 1;
	}
}

/*
 * 32-bit arm: Linux places uprobes on ARM-state instructions only. An arm
 * kernel refuses an offset that is not 4-aligned and decodes a 4-aligned
 * one as an ARM instruction, whose breakpoint would corrupt Thumb code;
 * an arm64 kernel probes no AArch32 task at all. sys/sdt.h's "nop" is
 * 0xbf00 in Thumb state and 0xe320f000 (or mov r0, r0) in ARM state, and
 * code is stored little-endian on both byte orders (BE8).
 */
static bool arm_thumb_site(const struct usdtkit_file *f,
			   const struct usdtkit_site *s, struct usdtkit_image *im)
{
	const uint8_t *code;

	if (f->arch->e_machine != USDTKIT_EM_ARM)
		return false;
	if (s->pc & 3)
		return true;
	code = usdtkit__image_bytes(im, s->pc_offset, 2);
	return code && code[0] == 0x00 && code[1] == 0xbf;
}

void usdtkit__site_place(struct usdtkit_file *f, struct usdtkit_site *s,
			 struct usdtkit_image *im)
{
	const struct usdtkit_segment *seg;

	/* prelink moved the file: shift by how far .stapsdt.base moved */
	if (f->has_base_scn && s->base) {
		uint64_t delta = f->base_scn_addr - s->base;

		s->pc += delta;
		if (s->sema)
			s->sema += delta;
	}
	seg = find_segment(f, s->pc);
	if (!seg || !(seg->flags & PF_X) || s->pc - seg->vaddr >= seg->filesz) {
		site_fail(s, -ENOEXEC, f->nsegs ? "pc is not in an executable segment"
						: "file has no loadable segments");
	} else {
		s->pc_offset = s->pc - seg->vaddr + seg->offset;
		detect_long_nop(f, s, seg, im);
		s->thumb = arm_thumb_site(f, s, im);
		if (s->thumb)
			site_fail(s, -EOPNOTSUPP, "Thumb code: Linux uprobes take "
				  "only ARM-state instructions (build with -marm)");
	}
	if (!s->sema)
		return;
	seg = find_segment(f, s->sema);
	if (!seg || (seg->flags & PF_X))
		site_fail(s, -EINVAL, "semaphore is not in a data segment");
	else
		s->sema_offset = s->sema - seg->vaddr + seg->offset;
	/* The kernel finds ref_ctr_offset through the file's mapping: a
	 * semaphore in the zero-filled tail (.bss) is reachable only while it
	 * shares a page with the file bytes. sys/sdt.h puts semaphores in
	 * .probes, so this is rare enough to warn of and keep going. */
	if (seg && !(seg->flags & PF_X) && s->sema - seg->vaddr >= seg->filesz)
		usdtkit__warn(&f->log, "%s: %s:%s: semaphore 0x%llx is in the "
			      "zero-filled part of its segment (.bss): the kernel "
			      "may not be able to count it", f->name, s->provider,
			      s->name, (unsigned long long)s->sema);
}
