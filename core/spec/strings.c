// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Names of IR enums, as printed by the CLI and its JSON. */
#include <usdtkit/usdtkit.h>

const char *usdtkit_loc_kind_str(enum usdtkit_loc_kind kind)
{
	switch (kind) {
	case USDTKIT_LOC_CONST:
		return "const";
	case USDTKIT_LOC_REG:
		return "reg";
	case USDTKIT_LOC_MEM:
		return "mem";
	case USDTKIT_LOC_SYMBOL:
		return "symbol";
	case USDTKIT_LOC_UNREADABLE:
		return "unreadable";
	default:
		return "invalid";
	}
}

const char *usdtkit_arg_status_str(enum usdtkit_arg_status st)
{
	switch (st) {
	case USDTKIT_ARG_OK:
		return "ok";
	case USDTKIT_ARG_INVALID:
		return "invalid";
	case USDTKIT_ARG_UNREADABLE:
		return "unreadable";
	case USDTKIT_ARG_BAD_SIZE:
		return "bad_size";
	case USDTKIT_ARG_UNRESOLVED:
		return "unresolved";
	case USDTKIT_ARG_UNSUPPORTED:
		return "unsupported";
	case USDTKIT_ARG_AMBIGUOUS:
		return "ambiguous";
	default:
		return "unknown";
	}
}

const char *usdtkit_reloc_str(enum usdtkit_reloc reloc)
{
	switch (reloc) {
	case USDTKIT_RELOC_NONE:
		return "none";
	case USDTKIT_RELOC_PCREL:
		return "pcrel";
	case USDTKIT_RELOC_LO12:
		return "lo12";
	case USDTKIT_RELOC_RISCV_LO:
		return "lo";
	case USDTKIT_RELOC_GOTOFF:
		return "gotoff";
	case USDTKIT_RELOC_GOT:
		return "got";
	case USDTKIT_RELOC_TLS:
		return "tls";
	case USDTKIT_RELOC_GOT_OFST:
		return "got_ofst";
	default:
		return "unknown";
	}
}
